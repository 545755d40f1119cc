"""LayerNormalization (opset 17) and RMSNormalization (opset 23) in QDQ models as mote's integer kernel
(mote.ops.layer_norm_int): within 1 LSB of onnxruntime on the quantized model, the generated C bit-exact with the
reference on the host (sanitized) and on rv32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import convert
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.frontend import onnx_blocks
from tests.frontend.onnx_util import check_against_onnx, feeds_for, quantize_qdq


@pytest.mark.parametrize("seq,dim", [(8, 16), (4, 64), (2, 96)])
def test_layer_normalization(seq: int, dim: int, tmp_path: Path) -> None:
    q = quantize_qdq(onnx_blocks.layer_norm(seq, dim), np.random.default_rng(seq))
    check_against_onnx(q, seeds=3, max_lsb=1, host=tmp_path, sanitize=True)
    ops = [n.op for n in convert(q, "ln").graph.nodes]
    assert "layer_norm" in ops and not {"sqrt", "div", "mean"} & set(ops)


def test_rms_normalization(tmp_path: Path) -> None:
    q = onnx_blocks.rms_norm_qdq()
    check_against_onnx(q, seeds=3, max_lsb=1, host=tmp_path, sanitize=True)
    (norm,) = [n for n in convert(q, "rms").graph.nodes if n.op == "layer_norm"]
    assert norm.attrs["rms"] is True


def test_layer_normalization_on_rv32(tmp_path: Path) -> None:
    q = quantize_qdq(onnx_blocks.layer_norm(8, 32), np.random.default_rng(1))
    conv = convert(q, "ln")
    firmware = build_rv32(compile_graph(conv.graph, core=Core.SCALAR), tmp_path / "rv32", Rv32Config(cc="zig"))
    inputs = feeds_for(conv, np.random.default_rng(2))
    result = firmware.run(inputs)
    for name, want in interpret(conv.graph, inputs).items():
        assert np.array_equal(result.outputs[name], want), name


@pytest.mark.parametrize("kind", ["rms_div", "rms_reciprocal", "layer"])
def test_decomposed_norms(kind: str, tmp_path: Path) -> None:
    """Norms written out in ops, quantized by onnxruntime (which quantizes some of the intermediate values): RMSNorm
    in either form runs in integers (table_mean for the mean of squares, a table for the square root and reciprocal,
    row_scale for the division), within 1 LSB of onnxruntime. LayerNorm's centering (x - mean(x), a float value
    onnxruntime leaves unquantized) still runs in float32 between DEQUANTIZE and QUANTIZE, within 1 LSB."""
    q = quantize_qdq(onnx_blocks.decomposed_norm(kind), np.random.default_rng(len(kind)))
    check_against_onnx(q, seeds=3, max_lsb=1, host=tmp_path, sanitize=True)
    graph = convert(q, kind).graph
    in_float = [n.op for n in graph.nodes if n.outputs[0].dtype.value == "float32"]
    if kind == "layer":
        assert "mean" in in_float
    else:
        assert in_float == ["dequantize"], in_float
        assert "table_mean" in {n.op for n in graph.nodes}
