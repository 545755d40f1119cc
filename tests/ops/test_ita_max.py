"""ITAMax (Deeploy's ITAMax_s8) in Deeploy's format against a transcription of the C kernel: reference,
sanitized host C, rv32; extremes, equal rows, long rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr


def ita_model(shape: tuple[int, ...], n_levels: int = 256) -> object:
    node = helper.make_node("ITAMax", ["input"], ["output"], n_levels=tensor_attr(n_levels))
    return network([node], {"input": shape}, ["output"])


def expected(x: np.ndarray, n_levels: int = 256) -> np.ndarray:
    stored = dk.ita_max_s8(x.reshape(-1).tolist(), x.shape[-1], n_levels)
    return (np.array(stored) + n_levels // 2).reshape(x.shape)


@pytest.mark.parametrize("shape,n_levels", [((1, 2, 8, 8), 256), ((3, 200), 256), ((4, 5), 64)])
def test_matches_the_kernel(shape: tuple[int, ...], n_levels: int, tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(len(shape) + n_levels), shape)
    assert_all_equal(run(ita_model(shape, n_levels), [x], tmp_path), [expected(x, n_levels)])


def test_on_rv32(tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(5), (6, 16))
    assert_all_equal(run(ita_model(x.shape), [x], tmp_path, host=False, rv32=True), [expected(x)])
