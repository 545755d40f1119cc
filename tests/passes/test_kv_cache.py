"""kv_cache on the bundled language model (an ONNX QDQ decoder step with an explicit past/present cache): every
attention layer becomes cached_attention, the past inputs and present outputs go, and step p of the rewritten
graph gives the bytes the original graph gives with the p earlier tokens' keys and values as its past."""

from __future__ import annotations

import numpy as np
import pytest

from mote.cli_generate import bundled_language_model
from mote.frontend.onnx import load_onnx_file
from mote.ir import Graph
from mote.ops.validate import verify_graph
from mote.passes.kv_cache import rewrite_kv_cache
from mote.reference import interpret, reset_state

LAYERS = 4


def _model(past: int) -> Graph:
    shapes = {f"past_{k}{i}": (1, 4, past, 32) for i in range(LAYERS) for k in "kv"}
    return load_onnx_file(bundled_language_model(), shapes)


@pytest.fixture(scope="module")
def rewritten() -> Graph:
    graph = _model(1)
    assert rewrite_kv_cache(graph, 16) == LAYERS
    verify_graph(graph)
    return graph


def test_the_cache_becomes_state(rewritten: Graph) -> None:
    assert [t.name for t in rewritten.inputs] == ["token", "pos"]
    assert [t.name for t in rewritten.outputs] == ["logits"]
    assert sum(n.op == "cached_attention" for n in rewritten.nodes) == LAYERS
    assert not any(n.op == "batch_matmul" or n.op == "softmax" for n in rewritten.nodes)
    caches = [t for t in rewritten.tensors if t.variable and t.dtype.value == "int8"]
    assert len(caches) == 2 * LAYERS and all(t.shape == (4, 16, 32) for t in caches)


def test_a_step_equals_the_explicit_cache(rewritten: Graph) -> None:
    text = list(b"The value of ")
    state = reset_state(rewritten)
    caches = {t.name: t for t in rewritten.tensors if t.variable and t.dtype.value == "int8"}
    for pos, token in enumerate(text):
        feed = {"token": np.array([[token]]), "pos": np.array([[pos]])}
        if pos in (1, 5, len(text) - 1):  # the original graph, its past the rewritten graph's cache, dequantized
            past = {}
            for i in range(LAYERS):
                for kind, cache in (("k", f"kv_cache{i}_keys"), ("v", f"kv_cache{i}_values")):
                    t = caches[cache]
                    rows = state[t][:, :pos].astype(np.float32) - t.zero_point
                    past[f"past_{kind}{i}"] = (rows * np.float32(t.scale))[None]
            expected = interpret(_model(pos), {**feed, **past})["logits"]
            got = interpret(rewritten, feed, state)["logits"]
            np.testing.assert_array_equal(got, expected, err_msg=f"position {pos}")
        else:
            interpret(rewritten, feed, state)
