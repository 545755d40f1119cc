"""The DSP-extension kernels' Armv7E-M assembly on the virtual platform: odd shapes bit-exact with TFLite
Micro on a Cortex-M4 (and the product of two activations with Deeploy's), and the MLPerf Tiny AD model beating
the anchor of TFLM + CMSIS-NN (issue 19)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote import pipeline
from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.cortexm import CortexM4, CortexMConfig, build_cortexm
from tests.frontend import deeploy_format as dp
from tests.ops.test_batch_matmul import int8_model
from tests.ops.test_conv2d import Case, conv_chain_model
from tests.ops.test_depthwise_conv2d import Case as DwCase
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_dsp_kernels import CONV_CASES
from tests.ops.test_fully_connected import Case as FcCase
from tests.ops.test_fully_connected import fc_model
from tests.passes.test_fuse_requant_matmul import attention_scores

M4 = CortexMConfig(cpu="cortex-m4", cc="zig")


def _models() -> dict[str, tuple[bytes, str]]:
    rng = np.random.default_rng(21)
    return {
        # 3x3 VALID to an odd pixel count and channel count, then a 1x1 at stride 2 (gathered windows)
        "conv": (conv_chain_model([CONV_CASES[0], Case(1, (5, 3), 5, 9, (1, 1), 5, (2, 2), (1, 1), "SAME", "NONE",
                                                       True, True)], rng), "mote_conv_dsp_s8"),
        "depthwise": (depthwise_model(DwCase(1, (7, 6), 12, 1, (3, 3), (2, 1), (1, 1), "SAME", "RELU", True, True),
                                      rng), "mote_depthwise_conv_dsp_s8"),
        "fully_connected": (fc_model(FcCase((2, 27), 27, 11, False, "NONE", True, 0, True), rng),
                            "mote_fully_connected_dsp_s8"),
        # two activations: odd rows, columns and depth, B transposed (adj_y), a broadcast batch
        "batch_matmul": (int8_model([2, 7, 13], [2, 5, 13], -3, 7, adj_y=True), "mote_batch_matmul_dsp_s8"),
        "batch_matmul_broadcast": (int8_model([2, 1, 6, 9], [3, 9, 5], 127, -128), "mote_batch_matmul_dsp_s8"),
    }


@pytest.mark.parametrize("name", ["conv", "depthwise", "fully_connected", "batch_matmul", "batch_matmul_broadcast"])
def test_dsp_assembly_matches_tflm(name: str, tmp_path: Path) -> None:
    data, kernel = _models()[name]
    compiled = compile_graph(load_tflite(data, name), core=Core.DSP)
    assert all(layer.kernel == kernel for layer in compiled.layers)
    firmware = build_cortexm(compiled, tmp_path / name, M4)
    for seed in range(2):
        inputs = random_inputs(compiled.graph, seed)
        assert_same(firmware.run(inputs).outputs, tflm_outputs(data, compiled.graph, inputs), f"{name}, seed {seed}")


def test_ad_model_beats_the_cmsis_nn_anchor(tmp_path: Path) -> None:
    """Issue 19's anchor: TFLM + CMSIS-NN runs the AD model's Invoke() in 583,120 Cortex-M4 instructions;
    the goal is at most 4.5e5 (1.3x fewer), bit-exact."""
    data = (MLPERF_TINY / "ad01_int8.tflite").read_bytes()
    compiled = compile_graph(load_tflite(data, "ad01_int8"), core=Core.DSP)
    firmware = build_cortexm(compiled, tmp_path / "ad", M4)
    inputs = random_inputs(compiled.graph, 0)
    result = firmware.run(inputs)
    assert_same(result.outputs, tflm_outputs(data, compiled.graph, inputs), "AD on cortex-m4")
    assert result.instructions <= 450_000


@pytest.mark.parametrize("shape, most", [((16, 64, 16), 2.0), ((64, 16, 64), 3.0)])
def test_attention_products_on_a_cortex_m4(shape: tuple[int, int, int], most: float, tmp_path: Path) -> None:
    """Attention-like products of two activations (rows x depth @ depth x columns) in SMLAD: bit-exact, and at
    most `most` instructions per MAC with the output stage (measured with zig's clang 1.69 and 2.62; the
    register-blocked kernel without the DSP extension 4.10 and 4.57)."""
    rows, depth, cols = shape
    data = int8_model([rows, depth], [depth, cols], -3, 7)
    compiled = compile_graph(load_tflite(data, "attention"), core=Core.DSP)
    assert compiled.layers[0].kernel == "mote_batch_matmul_dsp_s8"
    inputs = random_inputs(compiled.graph, 0)
    result = build_cortexm(compiled, tmp_path / "p", M4).run(inputs)
    assert_same(result.outputs, tflm_outputs(data, compiled.graph, inputs), "attention product")
    assert result.instructions <= most * compiled.macs


def test_matmul_rqs_on_a_cortex_m4(tmp_path: Path) -> None:
    """Deeploy's MatMul of two activations and its RequantShift (one matmul_rqs layer) on the DSP kernel: exact
    with Deeploy's arithmetic, unsigned first operand, odd sequence length and head size."""
    m, arrays, want = attention_scores(np.random.default_rng(3), True, -1000, heads=2, seq=9, dim=14)
    path, npz = dp.save(tmp_path / "p", m, arrays)
    report = pipeline.run(path, target=CortexM4(M4), input_path=npz, work_dir=tmp_path / "w")
    assert report.mismatches == 0 and report.onnx_outputs is not None
    assert np.array_equal(report.onnx_outputs[m.graph.output[0].name], want)
    (layer,) = [layer for layer in report.to_json()["layers"] if layer["op"] == "matmul_rqs"]
    assert layer["kernel"] == "mote_batch_matmul_dsp_requant_shift_s8"


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc is not installed")
@pytest.mark.parametrize("file, goal", [("kws_ref_model.tflite", 5_900_000), ("vww_96_int8.tflite", 18_500_000)])
def test_gcc_build_beats_the_cmsis_nn_anchor(file: str, goal: int, tmp_path: Path) -> None:
    """Built with arm-none-eabi-gcc -O2 (the anchor's compiler), KWS and VWW stay 1.3x under TFLM + CMSIS-NN's
    7,698,093 and 24,102,341 Cortex-M4 instructions, bit-exact (measured 5.34M and 17.06M)."""
    data = (MLPERF_TINY / file).read_bytes()
    compiled = compile_graph(load_tflite(data, Path(file).stem), core=Core.DSP)
    firmware = build_cortexm(compiled, tmp_path / "p", CortexMConfig(cpu="cortex-m4", cc="gcc"))
    inputs = random_inputs(compiled.graph, 0)
    result = firmware.run(inputs)
    assert_same(result.outputs, tflm_outputs(data, compiled.graph, inputs), f"{file} with gcc")
    assert result.instructions <= goal
