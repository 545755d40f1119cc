"""iGELU (Deeploy's GELU_s8_s32) in Deeploy's format against a transcription of the C kernel: every int8
input, the CCT and WaveFormer constants and ones the kernel's int8 / int16 parameters wrap; reference,
sanitized host C, rv32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import helper

from tests.ops import deeploy_kernels as dk
from tests.ops.dialect_util import assert_all_equal, network, run

EVERY = np.arange(-128, 128, dtype=np.int64).reshape(2, 128)


def gelu_model(b: int, one: int, domain: str = "") -> object:
    node = helper.make_node("iGELU", ["input"], ["output"], domain=domain, b=b, one=one)
    m = network([node], {"input": EVERY.shape}, ["output"])
    if domain:
        m.opset_import.append(helper.make_opsetid(domain, 1))
    return m


@pytest.mark.parametrize("b,one", [(-40, 1743), (-49, 2674), (-128, 30000), (200, 40000)])
def test_every_input_matches_the_kernel(b: int, one: int, tmp_path: Path) -> None:
    want = np.array(dk.gelu_s8_s32(EVERY.reshape(-1).tolist(), b, one, 0)).reshape(EVERY.shape)
    assert_all_equal(run(gelu_model(b, one, "PACTOps"), [EVERY], tmp_path), [want])


def test_unsigned_input_and_rv32(tmp_path: Path) -> None:
    x = EVERY + 128
    want = np.array(dk.gelu_s8_s32((x - 128).reshape(-1).tolist(), -40, 1743, 128)).reshape(x.shape)
    assert_all_equal(run(gelu_model(-40, 1743), [x.astype(np.uint8)], tmp_path, rv32=True), [want])
