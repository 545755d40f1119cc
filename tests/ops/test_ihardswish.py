"""iHardswish (Deeploy's iHardswish_s8_s32) in Deeploy's format against a transcription of the C kernel: every
int8 input, the kernel test's and microLlama's constants; reference, sanitized host C, rv32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, network, run

EVERY = np.arange(-128, 128, dtype=np.int64).reshape(1, 4, 64)


def hardswish_model(one_over_six: int, three: int, six: int) -> object:
    node = helper.make_node("iHardswish", ["input"], ["output"], one_over_six=one_over_six, three=three, six=six)
    return network([node], {"input": EVERY.shape}, ["output"])


@pytest.mark.parametrize("k", [(33, 765, 1530), (42, 122, 244), (7, -20, 90)])
def test_every_input_matches_the_kernel(k: tuple[int, int, int], tmp_path: Path) -> None:
    want = np.array(dk.hardswish_s8_s32(EVERY.reshape(-1).tolist(), *k, 0)).reshape(EVERY.shape)
    assert_all_equal(run(hardswish_model(*k), [EVERY], tmp_path, rv32=k[0] == 42), [want])


def test_unsigned_input(tmp_path: Path) -> None:
    """Deeploy's kernel offsets the clamp's argument but multiplies by the stored value."""
    x = EVERY + 128
    want = np.array(dk.hardswish_s8_s32((x - 128).reshape(-1).tolist(), 33, 765, 1530, 128)).reshape(x.shape)
    assert_all_equal(run(hardswish_model(33, 765, 1530), [x.astype(np.uint8)], tmp_path), [want])
