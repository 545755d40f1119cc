"""cached_attention: a stream of decoding steps over a KV cache kept as state. Each step equals BATCH_MATMUL,
SOFTMAX and BATCH_MATMUL (mote's TFLite Micro int8 semantics) on caches holding the live rows; the generated C
(sanitized) gives the reference's bytes step by step; a full context is an error in both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.errors import BuildError
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops import OPS
from mote.ops.cached_attention import ContextFullError
from mote.reference import interpret, reset_state
from mote.targets.host import build_host

HEADS, HEAD_DIM = 2, 8


def _q(scale: float, zero_point: int) -> Quant:
    return Quant((scale,), (zero_point,))


ONNX_PROBS = (float(np.float32(1 / 255)), -128)  # onnxruntime's softmax output quantization


def attention_graph(max_context: int, probs: tuple[float, int] | None = None, scores_scale: float = 0.06) -> Graph:
    q = Tensor("q", (HEADS, HEAD_DIM), DType.INT8, _q(0.05, 3))
    k = Tensor("k", (HEADS, HEAD_DIM), DType.INT8, _q(0.04, -5))
    v = Tensor("v", (HEADS, HEAD_DIM), DType.INT8, _q(0.03, 7))
    kc = Tensor("k_cache", (HEADS, max_context, HEAD_DIM), DType.INT8, k.quant, variable=True)
    vc = Tensor("v_cache", (HEADS, max_context, HEAD_DIM), DType.INT8, v.quant, variable=True)
    pos = Tensor("position", (1,), DType.INT32, variable=True)
    y = Tensor("y", (HEADS, HEAD_DIM), DType.INT8, _q(0.02, -1))
    attrs: dict[str, float | int] = {"scores_scale": scores_scale, "scores_zero_point": 10}
    if probs is not None:
        attrs.update(probs_scale=probs[0], probs_zero_point=probs[1])
    node = Node("cached_attention", "attention", [q, k, v, kc, vc, pos], [y], attrs)
    return Graph("attention", [q, k, v], [y], [node])


def _steps(n: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [{name: rng.integers(-128, 128, (HEADS, HEAD_DIM)).astype(np.int8) for name in "qkv"} for _ in range(n)]


def _decomposed(graph: Graph, steps: list[dict[str, np.ndarray]], probs: tuple[float, int] | None) -> np.ndarray:
    """The last step's output from mote's batch_matmul, softmax (and quantize) references on the n live rows."""
    q, k, v = graph.inputs
    n = len(steps)
    keys = np.stack([s["k"] for s in steps], axis=1)  # [heads, n, hd]
    values = np.stack([s["v"] for s in steps], axis=1)
    qt = Tensor("q3", (HEADS, 1, HEAD_DIM), DType.INT8, q.quant)
    kt = Tensor("k3", (HEADS, n, HEAD_DIM), DType.INT8, k.quant)
    vt = Tensor("v3", (HEADS, n, HEAD_DIM), DType.INT8, v.quant)
    st = Tensor("s", (HEADS, 1, n), DType.INT8, _q(graph.nodes[0].attrs["scores_scale"], 10))
    pt = Tensor("p", (HEADS, 1, n), DType.INT8, _q(1 / 256, -128))
    yt = Tensor("y3", (HEADS, 1, HEAD_DIM), DType.INT8, graph.outputs[0].quant)
    nodes = [Node("batch_matmul", "scores", [qt, kt], [st], {"adj_y": True}),
             Node("softmax", "probs", [st], [pt], {"beta": 1.0})]
    if probs is not None:
        requantized = Tensor("p2", (HEADS, 1, n), DType.INT8, _q(*probs))
        nodes.append(Node("quantize", "requantized", [pt], [requantized]))
        pt = requantized
    nodes.append(Node("batch_matmul", "att", [pt, vt], [yt]))
    values_of = {qt: steps[-1]["q"][:, None], kt: keys, vt: values}
    for node in nodes:
        op = OPS[node.op]
        values_of[node.outputs[0]] = op.reference(node, op.prepare(node), [values_of[t] for t in node.inputs])[0]
    return values_of[yt][:, 0]


@pytest.mark.parametrize(("probs", "scores_scale"), [(None, 0.06), (ONNX_PROBS, 0.06), (ONNX_PROBS, 0.5)])
def test_each_step_is_the_decomposed_attention_over_the_live_context(probs: tuple[float, int] | None,
                                                                     scores_scale: float) -> None:
    """0.5: scores far below their row's maximum fall under the softmax's diff_min (probability 0)."""
    graph = attention_graph(max_context=12, probs=probs, scores_scale=scores_scale)
    steps = _steps(12)
    state = reset_state(graph)
    outputs = [interpret(graph, s, state)["y"] for s in steps]
    for n in range(1, len(steps) + 1):
        np.testing.assert_array_equal(outputs[n - 1], _decomposed(graph, steps[:n], probs), err_msg=f"step {n}")
    assert len({o.tobytes() for o in outputs}) > len(outputs) // 2  # the context changes the answers
    position = next(a for t, a in state.items() if t.name == "position")
    assert position[0] == 12


def test_a_full_context_is_an_error() -> None:
    graph = attention_graph(max_context=3)
    state = reset_state(graph)
    for s in _steps(3):
        interpret(graph, s, state)
    with pytest.raises(ContextFullError, match="context is full"):
        interpret(graph, _steps(1, seed=9)[0], state)


@pytest.mark.parametrize(("probs", "scores_scale"), [(None, 0.06), (ONNX_PROBS, 0.06), (ONNX_PROBS, 0.5)])
def test_generated_c_gives_the_reference_step_by_step(probs: tuple[float, int] | None, scores_scale: float,
                                                      tmp_path: Path) -> None:
    graph = attention_graph(max_context=9, probs=probs, scores_scale=scores_scale)
    steps = _steps(9, seed=2)
    state = reset_state(graph)
    expected = [interpret(graph, s, state)["y"] for s in steps]
    compiled = compile_graph(graph)
    assert compiled.state_bytes >= 2 * HEADS * 9 * HEAD_DIM + 4
    binary = build_host(compiled, tmp_path / "project", sanitize=True)
    got, _ = binary.run_stream(steps)
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_array_equal(g["y"], e, err_msg=f"step {k}")
    with pytest.raises(BuildError, match="failed"):  # model_run returns the kernel's error status
        binary.run_stream(_steps(10, seed=2))
