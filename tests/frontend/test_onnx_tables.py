"""GELU (the Gelu op, exact and tanh, and its erf and tanh decompositions) and SiLU in QDQ models quantized by
onnxruntime's quantize_static: the elementwise float chains of one quantized tensor become 256-byte tables
(mote.frontend.onnx.tables, op table_lookup), within 1 LSB of onnxruntime on the quantized model; the generated C
bit-exact with the reference on the host (sanitized)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.frontend.onnx import convert
from tests.frontend import onnx_blocks
from tests.frontend.onnx_util import check_against_onnx, quantize_qdq

KINDS = ["gelu", "gelu_tanh_op", "gelu_erf", "gelu_tanh", "silu"]


@pytest.mark.parametrize("kind", KINDS)
def test_activation(kind: str, tmp_path: Path) -> None:
    q = quantize_qdq(onnx_blocks.activation(kind), np.random.default_rng(len(kind)))
    check_against_onnx(q, seeds=3, max_lsb=1, host=tmp_path, sanitize=True)
    graph = convert(q, kind).graph
    ops = [n.op for n in graph.nodes]
    inner = graph.nodes[1:-1]  # from the first MatMul to the last: integer
    assert all(n.outputs[0].dtype.value == "int8" for n in inner), ops
    if kind != "silu":
        assert "table_lookup" in ops
