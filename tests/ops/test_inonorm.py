"""iNoNorm (Deeploy's SnitchiNoNorm_s8_s8) in Deeploy's format against a transcription of the C kernel: full
and broadcast weights and biases, outputs that wrap; reference, sanitized host C, rv32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr


def nonorm_model(shape: tuple[int, ...], w: np.ndarray, b: np.ndarray, mul: int, d: int) -> object:
    node = helper.make_node("iNoNorm", ["input", "weight", "bias"], ["output"], D=tensor_attr(d),
                            mul=tensor_attr(mul), n_levels=tensor_attr(256))
    return network([node], {"input": shape}, ["output"], {"weight": w, "bias": b})


def expected(x: np.ndarray, w: np.ndarray, b: np.ndarray, mul: int, log2d: int) -> np.ndarray:
    wf, bf = (np.broadcast_to(a, x.shape).reshape(-1).tolist() for a in (w, b))
    return np.array(dk.inonorm_s8(x.reshape(-1).tolist(), wf, bf, mul, log2d)).reshape(x.shape)


@pytest.mark.parametrize("w_shape,b_shape,mul,log2d", [((16, 16), (16,), 425, 16), ((16,), (1, 16, 1), 300, 12),
                                                       ((1, 1), (1,), 5000, 10)])
def test_matches_the_kernel(w_shape: tuple[int, ...], b_shape: tuple[int, ...], mul: int, log2d: int,
                            tmp_path: Path) -> None:
    rng = np.random.default_rng(mul)
    x = int8_inputs(rng, (1, 16, 16))
    w, b = rng.integers(-128, 128, w_shape), rng.integers(-5300, 5300, b_shape)
    assert_all_equal(run(nonorm_model(x.shape, w, b, mul, 2**log2d), [x], tmp_path),
                     [expected(x, w, b, mul, log2d)])


def test_on_rv32(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    x = int8_inputs(rng, (1, 8, 32))
    w, b = rng.integers(-128, 128, (8, 32)), rng.integers(-5000, 5000, (32,))
    assert_all_equal(run(nonorm_model(x.shape, w, b, 425, 2**16), [x], tmp_path, host=False, rv32=True),
                     [expected(x, w, b, 425, 16)])
