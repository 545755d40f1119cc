"""The Armv6-M kernels' assembly on the virtual platform: odd shapes bit-exact with TFLite Micro on a Cortex-M0+,
and the MLPerf Tiny models within instructions-per-MAC bounds that the portable kernels they replace miss by far."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.cortexm import CortexMConfig, build_cortexm
from tests.ops.test_armv6m_kernels import CONV_CASES, DW_CASES
from tests.ops.test_conv2d import Case, conv_chain_model
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_fully_connected import Case as FcCase
from tests.ops.test_fully_connected import fc_model

M0PLUS = CortexMConfig(cpu="cortex-m0plus", cc="zig")


def _models() -> dict[str, tuple[bytes, str]]:
    rng = np.random.default_rng(41)
    return {
        # 3x3 VALID to five channels, then a 1x1 at stride 2 with padding (gathered windows)
        "conv": (conv_chain_model([CONV_CASES[0], Case(1, (5, 3), 5, 9, (1, 1), 5, (2, 2), (1, 1), "SAME", "NONE",
                                                       True, True)], rng), "mote_conv_armv6m_s8"),
        "depthwise": (depthwise_model(DW_CASES[1], rng), "mote_depthwise_conv_armv6m_s8"),
        "depthwise_dilated": (depthwise_model(DW_CASES[2], rng), "mote_depthwise_conv_armv6m_s8"),
        "fully_connected": (fc_model(FcCase((2, 27), 27, 11, False, "NONE", True, 0, True), rng),
                            "mote_fully_connected_armv6m_s8"),
    }


GCC = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc is not installed")


@pytest.mark.parametrize("cc", ["zig", pytest.param("gcc", marks=GCC)])
@pytest.mark.parametrize("name", ["conv", "depthwise", "depthwise_dilated", "fully_connected"])
def test_armv6m_assembly_matches_tflm(name: str, cc: str, tmp_path: Path) -> None:
    """With zig's clang and with arm-none-eabi-gcc (whose Thumb-1 inline assembly syntax differs)."""
    data, kernel = _models()[name]
    compiled = compile_graph(load_tflite(data, name), core=Core.ARMV6M)
    assert all(layer.kernel == kernel for layer in compiled.layers)
    firmware = build_cortexm(compiled, tmp_path / name, CortexMConfig(cpu="cortex-m0plus", cc=cc))
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs), f"{name}, seed {seed}")


# Instructions per MAC on Cortex-M0+, a little above what the Armv6-M kernels take (2.66, 3.84, 3.06, 4.17); the
# portable vector kernels they replace take 6.0, 11.0, 7.4 and 11.5.
BOUNDS = {"ad01_int8.tflite": 2.8, "kws_ref_model.tflite": 4.0, "pretrainedResnet_quant.tflite": 3.2,
          "vww_96_int8.tflite": 4.4}


@pytest.mark.parametrize("file", list(BOUNDS))
def test_mlperf_tiny_instructions_per_mac_on_cortex_m0plus(file: str, tmp_path: Path) -> None:
    data = (MLPERF_TINY / file).read_bytes()
    compiled = compile_graph(load_tflite(data, file), core=Core.ARMV6M)
    result = build_cortexm(compiled, tmp_path / "m", M0PLUS).run(inputs := random_inputs(compiled.graph, 0))
    assert_same(result.outputs, tflm_outputs(data, compiled.graph, inputs), f"{file} on cortex-m0plus")
    assert result.instructions <= BOUNDS[file] * compiled.macs, result.instructions / compiled.macs
