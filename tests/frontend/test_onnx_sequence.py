"""Sequence-model ops in QDQ graphs (mote.frontend.onnx.sequence): a token embedding gathered by int64 ids with
learned positions, and rotary position embeddings (cos/sin tables gathered by a position input, rotate_half by
Slice, Neg and Concat); quantized by onnxruntime's quantize_static, the reference within 1 LSB of onnxruntime on
the quantized model, the generated C bit-exact with it (sanitized)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnxruntime.quantization import QuantFormat

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.onnx import convert
from mote.reference import interpret
from mote.targets.host import build_host
from tests.frontend import onnx_blocks
from tests.frontend.onnx_util import check_against_onnx, quantize_static_on


def quantized(f: onnx.ModelProto, feeds: list[dict[str, np.ndarray]]) -> onnx.ModelProto:
    return quantize_static_on(f, feeds, quant_format=QuantFormat.QDQ, per_channel=True,
                              extra_options={"ActivationSymmetric": False})


def test_embedding_and_learned_positions(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    q = quantized(onnx_blocks.embedding(), [{"ids": rng.integers(0, 50, (1, 8)).astype(np.int64)} for _ in range(8)])
    result = check_against_onnx(q, ids={"ids": 50}, max_lsb=1, host=tmp_path, sanitize=True)
    assert result.match_rate == 1.0
    graph = convert(q, "embedding").graph
    assert [n.op for n in graph.nodes][:2] == ["gather", "add"]  # the int8 table gathered, no requantization
    assert graph.inputs[0].dtype.value == "int64"


def test_an_id_outside_the_table_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    q = quantized(onnx_blocks.embedding(), [{"ids": rng.integers(0, 50, (1, 8)).astype(np.int64)} for _ in range(4)])
    graph = convert(q, "embedding").graph
    ids = np.array([[1, 2, 3, 50, 4, 5, 6, 7]], np.int64)
    with pytest.raises(MoteError, match="outside"):
        interpret(graph, {"ids": ids})
    binary = build_host(compile_graph(graph), tmp_path / "project")
    with pytest.raises(MoteError):
        binary.run({"ids": ids})


def test_rotary_position_embedding(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    feeds = [{"x": rng.normal(size=(1, 8, 32)).astype(np.float32),
              "pos": (np.arange(8)[None] + rng.integers(0, 56)).astype(np.int64)} for _ in range(8)]
    q = quantized(onnx_blocks.rotary(), feeds)
    check_against_onnx(q, ids={"pos": 64}, max_lsb=1, host=tmp_path, sanitize=True)
    ops = [n.op for n in convert(q, "rotary").graph.nodes]
    assert ops.count("gather") == 2 and ops.count("strided_slice") == 2 and "concatenation" in ops
