"""Transformer blocks from float ONNX quantized by `mote quantize` (onnxruntime's quantize_static, QDQ): the
MatMul of two activations runs as one int8 BATCH_MATMUL, Softmax over the
last axis as mote's int8 softmax; the generated C bit-exact with the reference on the host and on rv32, the
reference within 1 LSB of onnxruntime on the quantized model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.onnx import convert, quantize_model
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.frontend import onnx_blocks
from tests.frontend.onnx_util import check_against_onnx, feeds_for
from tests.ops.kernel_util import chosen


def mote_quantize(float_model: onnx.ModelProto, tmp_path: Path, samples: int = 16, seed: int = 0) -> onnx.ModelProto:
    """The model through `mote quantize` (its Python API), calibrated on normal samples."""
    src, calib, dst = tmp_path / "float.onnx", tmp_path / "calib.npz", tmp_path / "int8.onnx"
    onnx.save(float_model, src)
    rng = np.random.default_rng(seed)
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in float_model.graph.input}
    np.savez(calib, **{n: rng.normal(size=(samples, *s)).astype(np.float32) for n, s in shapes.items()})
    quantize_model(src, calib, dst)
    return onnx.load(str(dst))


@pytest.mark.parametrize("seq,dim,heads", [(16, 32, 2), (8, 16, 1)])
def test_attention_block(seq: int, dim: int, heads: int, tmp_path: Path) -> None:
    q = mote_quantize(onnx_blocks.attention(seq, dim, heads), tmp_path)
    result = check_against_onnx(q, seeds=2, max_lsb=1, host=tmp_path, sanitize=True)
    assert result.values == 2 * seq * dim
    graph = convert(q, "attention").graph
    matmuls = [n for n in graph.nodes if n.op == "batch_matmul"]
    assert len(matmuls) == 2
    for core in Core:  # a scalar core: the pairs kernels (sequences in sets of four rows and columns); DSP: SMLAD
        want = {Core.SCALAR: "mote_batch_matmul_pairs", Core.DSP: "mote_batch_matmul_dsp_s8"}.get(
            core, "mote_batch_matmul_blocked_s8")
        assert all(chosen(n, core).startswith(want) for n in matmuls), core
    assert "softmax" in {n.op for n in graph.nodes}


def test_attention_block_on_rv32(tmp_path: Path) -> None:
    q = mote_quantize(onnx_blocks.attention(16, 32, 2), tmp_path)
    conv = convert(q, "attention")
    firmware = build_rv32(compile_graph(conv.graph, core=Core.SCALAR), tmp_path / "rv32", Rv32Config(cc="zig"))
    for seed in range(2):
        inputs = feeds_for(conv, np.random.default_rng(seed))
        expected = interpret(conv.graph, inputs)
        result = firmware.run(inputs)
        for name, want in expected.items():
            assert np.array_equal(result.outputs[name], want), name


def test_transposed_operand_is_read_in_place(tmp_path: Path) -> None:
    """MatMul(a, Transpose(b) of its last two axes): BATCH_MATMUL with adj_y, no copy of b."""
    f = onnx_blocks.model([onnx_blocks.N("Transpose", ["b"], ["bt"], perm=[0, 2, 1]),
                           onnx_blocks.N("MatMul", ["a", "bt"], ["y"])], {"a": (2, 8, 16), "b": (2, 12, 16)}, ["y"])
    q = mote_quantize(f, tmp_path)
    check_against_onnx(q, seeds=2, max_lsb=1, host=tmp_path, sanitize=True)
    graph = convert(q, "qk").graph
    (matmul,) = [n for n in graph.nodes if n.op not in ("quantize", "dequantize")]  # the float inputs and output
    assert matmul.op == "batch_matmul" and matmul.attrs == {"adj_x": False, "adj_y": True}


def test_llama_block_integer_end_to_end(tmp_path: Path) -> None:
    """A Llama-style layer from token ids and positions to logits (tests/frontend/onnx_blocks.llama_block: embedding
    Gather, RMSNorm as PyTorch exports it, rotary attention with a causal mask, SiLU-gated MLP) through `mote
    quantize`: integer from the ids to the logits (the only float op dequantizes them). Against onnxruntime on the
    quantized model (which runs it unoptimized: its graph optimizer fails on the model), measured on these seeds:
    94% of the logits within 1 LSB, none more than 3 LSB off (each int8 op rounds as TFLite does, or as its table
    does, where onnxruntime rounds in float; the differences add up over the layer). The C bit-exact on the host
    (sanitized) and on rv32."""
    f = onnx_blocks.llama_block()
    src, calib, dst = tmp_path / "float.onnx", tmp_path / "calib.npz", tmp_path / "int8.onnx"
    onnx.save(f, src)
    rng = np.random.default_rng(0)
    np.savez(calib, ids=rng.integers(0, 48, (16, 1, 8)), pos=np.arange(8)[None, None] + rng.integers(0, 50, (16, 1, 1)))
    quantize_model(src, calib, dst)
    q = onnx.load(str(dst))
    ids = {"ids": 48, "pos": 56}
    check_against_onnx(q, seeds=3, min_match=0.9, max_lsb=3, host=tmp_path, sanitize=True, ids=ids)
    graph = convert(q, "llama").graph
    floats = [n.op for n in graph.nodes if n.outputs[0].dtype.value == "float32"]
    assert floats == ["dequantize"], floats
    assert {"gather", "table_mean", "table_lookup", "batch_matmul", "softmax"} <= {n.op for n in graph.nodes}
    firmware = build_rv32(compile_graph(graph, core=Core.SCALAR), tmp_path / "rv32", Rv32Config(cc="zig"))
    inputs = {"ids": rng.integers(0, 48, (1, 8)).astype(np.int64), "pos": (np.arange(8)[None] + 3).astype(np.int64)}
    result = firmware.run(inputs)
    for name, want in interpret(graph, inputs).items():
        assert np.array_equal(result.outputs[name], want), name
