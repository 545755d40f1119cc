"""ITAPartialMax (Deeploy's ITAPartialMax_s8) in Deeploy's format against a transcription of the C kernel:
reference, sanitized host C, rv32; maxima growing from group to group (the running sum shifted), extremes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from mote.errors import UnsupportedError
from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, int8_inputs, network, run, tensor_attr


def partial_model(shape: tuple[int, ...], width: int, n_levels: int = 256) -> object:
    node = helper.make_node("ITAPartialMax", ["input"], ["output"], group_width=width, n_levels=tensor_attr(n_levels))
    return network([node], {"input": shape}, ["output"])


def expected(x: np.ndarray, width: int, n_levels: int = 256) -> np.ndarray:
    stored = dk.ita_partial_max_s8(x.reshape(-1).tolist(), x.shape[-1], width, n_levels)
    return (np.array(stored) + n_levels // 2).reshape(x.shape)


@pytest.mark.parametrize("shape,width", [((1, 4, 64), 16), ((3, 48), 8), ((2, 2, 16), 16), ((5, 12), 1)])
def test_matches_the_kernel(shape: tuple[int, ...], width: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(width + shape[-1])
    x = int8_inputs(rng, shape)
    x[..., :shape[-1] // 2] = np.clip(x[..., :shape[-1] // 2] - 100, -128, 127)  # later groups hold the maxima
    assert_all_equal(run(partial_model(shape, width), [x], tmp_path), [expected(x, width)])


def test_on_rv32(tmp_path: Path) -> None:
    x = int8_inputs(np.random.default_rng(6), (4, 32))
    assert_all_equal(run(partial_model(x.shape, 8), [x], tmp_path, host=False, rv32=True), [expected(x, 8)])


def test_rows_must_be_whole_groups(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedError, match="group_width"):
        run(partial_model((2, 20), 16), [np.zeros((2, 20), np.int64)], tmp_path, host=False)
