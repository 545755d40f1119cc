"""iRMSNorm (Deeploy's iRMSnorm_s8_s8) in Deeploy's format against a transcription of the C kernel:
reference, sanitized host C, rv32; the microLlama weights, clamping, all-zero rows, plain int attributes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from mote.errors import UnsupportedError
from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run


def rmsnorm_model(shape: tuple[int, ...], w: np.ndarray, d: int) -> object:
    node = helper.make_node("iRMSNorm", ["input", "weight"], ["output"], D=d, n_levels=256)
    return network([node], {"input": shape}, ["output"], {"weight": w})


def expected(x: np.ndarray, w: np.ndarray, log2d: int) -> np.ndarray:
    return np.array(dk.rmsnorm_s8(x.reshape(-1).tolist(), w.tolist(), 0, x.shape[-1], log2d)).reshape(x.shape)


@pytest.mark.parametrize("shape,w_max,log2d", [((1, 16, 64), 4_000_000, 16), ((3, 100), 2**23, 12),
                                               ((3, 5), 300, 0)])
def test_matches_the_kernel(shape: tuple[int, ...], w_max: int, log2d: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(w_max)
    x = int8_inputs(rng, shape)
    x.reshape(-1, shape[-1])[0] = 0  # a row of zeros: the square root of 1
    x.reshape(-1, shape[-1])[1, 0] = -128  # signed inputs (Deeploy's runner reads all-non-negative ones as uint8)
    w = rng.integers(-w_max, w_max, shape[-1])
    assert_all_equal(run(rmsnorm_model(shape, w, 2**log2d), [x], tmp_path), [expected(x, w, log2d)])


def test_on_rv32(tmp_path: Path) -> None:
    rng = np.random.default_rng(10)
    x = int8_inputs(rng, (4, 64))
    w = np.full(64, 3_931_285)
    assert_all_equal(run(rmsnorm_model(x.shape, w, 2**16), [x], tmp_path, host=False, rv32=True),
                     [expected(x, w, 16)])


def test_weights_that_overflow_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError, match="int32"):
        run(rmsnorm_model((1, 4), np.full(4, 2**25), 2**16), [np.zeros((1, 4), np.int64)], tmp_path, host=False)


def test_unsigned_input(tmp_path: Path) -> None:
    """Values [0, 255] (stored minus 128): the kernel adds 128 back; the output keeps the input's sign type, so
    its values are the stored ones plus 128 (as Deeploy's test runner reads an unsigned output)."""
    rng = np.random.default_rng(12)
    x = rng.integers(0, 256, (3, 32))
    w = rng.integers(-2**20, 2**20, 32)
    stored = np.array(dk.rmsnorm_s8((x - 128).reshape(-1).tolist(), w.tolist(), 128, 32, 14)).reshape(x.shape)
    assert_all_equal(run(rmsnorm_model(x.shape, w, 2**14), [x.astype(np.uint8)], tmp_path), [stored + 128])


def test_over_two_axes(tmp_path: Path) -> None:
    """axis=-2: each row is the last two axes, one weight per element of it (Deeploy's NormalizedAxesSize)."""
    rng = np.random.default_rng(13)
    x = int8_inputs(rng, (3, 4, 8))
    w = rng.integers(-2**20, 2**20, 32)
    node = helper.make_node("iRMSNorm", ["input", "weight"], ["output"], D=2**14, n_levels=256, axis=-2)
    m = network([node], {"input": x.shape}, ["output"], {"weight": w.reshape(4, 8)})
    want = np.array(dk.rmsnorm_s8(x.reshape(-1).tolist(), w.tolist(), 0, 32, 14)).reshape(x.shape)
    assert_all_equal(run(m, [x], tmp_path), [want])
