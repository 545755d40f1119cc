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
