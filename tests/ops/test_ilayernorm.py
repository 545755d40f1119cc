"""iLayerNorm (Deeploy's Layernorm_s8_s8) in Deeploy's format against a transcription of the C kernel:
reference, sanitized host C, rv32; weights as in the CCT networks and large ones (64-bit division), outputs
that wrap, unsigned inputs, constant rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr


def layernorm_model(shape: tuple[int, ...], w: np.ndarray, b: np.ndarray, d: int) -> object:
    node = helper.make_node("iLayerNorm", ["input", "weight", "bias"], ["output"], D=tensor_attr(d),
                            n_levels=tensor_attr(256))
    return network([node], {"input": shape}, ["output"], {"weight": w, "bias": b})


def expected(x: np.ndarray, w: np.ndarray, b: np.ndarray, offset: int, log2d: int) -> np.ndarray:
    stored = dk.layernorm_s8(x.reshape(-1).tolist(), w.tolist(), b.tolist(), offset, x.shape[-1], log2d)
    return np.array(stored).reshape(x.shape)


@pytest.mark.parametrize("shape,w_max,log2d", [((1, 16, 32), 300_000, 14), ((2, 3, 128), 2**24, 20),
                                               ((4, 7), 1000, 2)])
def test_matches_the_kernel(shape: tuple[int, ...], w_max: int, log2d: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(w_max)
    x = int8_inputs(rng, shape)
    w = rng.integers(-w_max, w_max, shape[-1])
    b = rng.integers(-10_000, 10_000, shape[-1])
    assert_all_equal(run(layernorm_model(shape, w, b, 2**log2d), [x], tmp_path), [expected(x, w, b, 0, log2d)])


def test_unsigned_input(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    x = int8_inputs(rng, (3, 40), 0, 255)
    w, b = rng.integers(-50_000, 50_000, 40), rng.integers(-9000, 9000, 40)
    assert_all_equal(run(layernorm_model(x.shape, w, b, 2**12), [x.astype(np.uint8)], tmp_path),
                     [expected(x - 128, w, b, 128, 12)])


def test_on_rv32(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    x = int8_inputs(rng, (4, 32))
    w, b = rng.integers(-2**23, 2**23, 32), rng.integers(-10_000, 10_000, 32)
    results = run(layernorm_model(x.shape, w, b, 2**16), [x], tmp_path, host=False, rv32=True)
    assert_all_equal(results, [expected(x, w, b, 0, 16)])
