"""RequantShift's output stage is carried only by projects that have RequantShift rows: a TFLite model's
blocked convolutions name mote_output_rest_s8 as their out-of-line output stage, link no
mote_output_requant_shift_s8 and get no 32-bit RequantShift path in their assembly; an integer-dialect model's
fused convolutions name mote_output_rest_any_s8 and carry both (and run exactly: test_onnx_integer.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import convert
from mote.frontend.tflite import load_tflite
from mote.ops.registry import Core
from mote.sim.elf import ElfImage
from mote.targets.rv32 import Rv32Config, build_rv32, micro
from tests.frontend.test_onnx_integer import cnn
from tests.ops.test_conv2d import Case, conv_model

RQS_C = "mote/mote_output_requant_shift_s8.c"
RQS_32 = "divu"  # the in-line path's division by a RequantShift row's divisor (micro.requant_shift_32)


def _assembly(project: Path) -> str:
    return (project / "rv32" / micro.FILE).read_text()


def test_tflite_project_links_no_requant_shift(tmp_path: Path) -> None:
    case = Case(1, (12, 12), 3, 8, (3, 3), 3, (2, 2), (1, 1), "SAME", "RELU", True, True)
    data = conv_model(case, np.random.default_rng(5))
    compiled = compile_graph(load_tflite(data, "conv"), core=Core.SCALAR)
    assert compiled.layers[0].kernel == "mote_conv_blocked_s8"
    assert RQS_C not in compiled.sources and "mote/mote_output_rest_any_s8.c" not in compiled.sources
    assert "mote_output_rest_s8" in compiled.sources["model.c"]
    build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    assert "mote_output_requant_shift_s8" not in ElfImage(tmp_path / "fw" / "firmware.elf").symbols
    assert RQS_32 not in _assembly(tmp_path / "fw") and "mote_dot_pairs_4x4_s8:" in _assembly(tmp_path / "fw")


def test_requant_shift_project_carries_it(tmp_path: Path) -> None:
    conv = convert(cnn(np.random.default_rng(7)), "integer_cnn")
    compiled = compile_graph(conv.graph, core=Core.SCALAR)
    kernels = {layer.kernel for layer in compiled.layers}
    assert kernels & {"mote_conv_requant_shift_s8", "mote_conv_requant_shift_wide_s8"}
    assert RQS_C in compiled.sources and "mote_output_rest_any_s8" in compiled.sources["model.c"]
    build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    assert "mote_output_requant_shift_s8" in ElfImage(tmp_path / "fw" / "firmware.elf").symbols
    assert RQS_32 in _assembly(tmp_path / "fw")
