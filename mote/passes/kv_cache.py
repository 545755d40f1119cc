"""kv_cache: a decoder step graph with an explicit KV cache -> cached_attention layers with the cache as state.

An exported decoder step takes the keys and values of the earlier tokens as inputs and returns them with
this token's appended (`present_k = Concat(past_k, k)`, as Hugging Face's and onnxruntime's decoders do);
attention reads the whole of `present_k` and `present_v`. Compiled as it is, every step would copy the cache
in and out and attend over a fixed number of positions. This pass finds, per layer, the pattern the ONNX QDQ
frontend makes of it:

    past_k (graph input) -> QUANTIZE -> CONCATENATION(axis 2, with k) -> present (-> DEQUANTIZE -> graph output)
    scores = BATCH_MATMUL(q, present_k, adj_y) -> SOFTMAX [-> QUANTIZE int8 -> int8] -> BATCH_MATMUL(., present_v)

(q, k, v [1, heads, 1, head_dim]) and replaces it with one cached_attention node (mote/ops/cached_attention.py):
its key and value caches become state sized for `max_context` tokens, the past inputs and present outputs
disappear, and the step's cost grows with the live context instead. The replacement computes exactly what
the pattern computes on a cache of the live rows, so step p of the rewritten graph gives the bytes the
original graph gives with p earlier tokens as its past. Layers that do not match are left as they are; a
graph with no match is returned unchanged (`rewrite_kv_cache` reports how many layers it rewrote).
"""

from __future__ import annotations

from dataclasses import dataclass

from mote.ir import DType, Graph, Node, Tensor

TIME_AXIS = 2  # [batch, heads, time, head_dim]


@dataclass
class _Cache:
    past: Tensor  # the graph input
    quantize: Node
    concat: Node
    new: Tensor  # this token's key or value, int8 [1, heads, 1, head_dim] at the cache's quantization
    present: Tensor  # the concatenation's output
    dequantize: Node | None  # present -> the graph output
    output: Tensor | None


def _consumers(graph: Graph) -> dict[Tensor, list[Node]]:
    out: dict[Tensor, list[Node]] = {}
    for node in graph.nodes:
        for t in node.inputs:
            if t is not None:
                out.setdefault(t, []).append(node)
    return out


def _cache(graph: Graph, present: Tensor, producer: dict[Tensor, Node], users: dict[Tensor, list[Node]]
           ) -> _Cache | None:
    concat = producer.get(present)
    if concat is None or concat.op != "concatenation" or len(concat.inputs) != 2 or \
            concat.attrs.get("axis") != TIME_AXIS or len(present.shape) != 4 or present.dtype is not DType.INT8:
        return None
    quantized, new = concat.inputs
    quantize = producer.get(quantized) if quantized is not None else None
    if quantize is None or quantize.op != "quantize" or new is None or new.shape[TIME_AXIS] != 1:
        return None
    past = quantize.inputs[0]
    if past not in graph.inputs or users.get(quantized) != [concat] or new.quant != present.quant:
        return None
    dequantize, output = None, None
    for user in users.get(present, []):
        if user.op == "dequantize" and user.outputs[0] in graph.outputs:
            dequantize, output = user, user.outputs[0]
        elif user.op != "batch_matmul":
            return None
    return _Cache(past, quantize, concat, new, present, dequantize, output)


def _attention(graph: Graph, scores_mm: Node, producer: dict[Tensor, Node], users: dict[Tensor, list[Node]]
               ) -> tuple[Node, ...] | None:
    """(softmax, [requantize], values BATCH_MATMUL) after a scores BATCH_MATMUL, each the only user of the last."""
    chain: list[Node] = []
    t = scores_mm.outputs[0]
    for op in ("softmax", "quantize", "batch_matmul"):
        nxt = users.get(t, [])
        if len(nxt) != 1 or t in graph.outputs:
            return None
        node = nxt[0]
        if node.op != op:
            if op == "quantize":
                continue
            return None
        if op == "quantize" and (node.inputs[0] is None or node.inputs[0].dtype is not DType.INT8 or
                                 node.outputs[0].dtype is not DType.INT8):
            return None
        chain.append(node)
        t = node.outputs[0]
    return tuple(chain)


def _tensor(name: str, shape: tuple[int, ...], like: Tensor, variable: bool = False) -> Tensor:
    return Tensor(name, shape, like.dtype, like.quant, variable=variable)


def rewrite_kv_cache(graph: Graph, max_context: int) -> int:
    """Rewrite every matching attention layer of `graph` in place; returns how many it rewrote."""
    rewritten = 0
    while True:
        producer, users = graph.producer(), _consumers(graph)
        match = _find(graph, producer, users)
        if match is None:
            return rewritten
        _replace(graph, *match, max_context=max_context, index=rewritten)
        rewritten += 1


def _find(graph: Graph, producer: dict[Tensor, Node], users: dict[Tensor, list[Node]]
          ) -> tuple[Node, tuple[Node, ...], _Cache, _Cache] | None:
    for node in graph.nodes:
        if node.op != "batch_matmul" or not node.attrs.get("adj_y") or node.attrs.get("adj_x"):
            continue
        q, keys = node.inputs
        if q is None or keys is None or q.shape[:2] != keys.shape[:2] or q.shape[TIME_AXIS] != 1:
            continue
        k = _cache(graph, keys, producer, users)
        chain = _attention(graph, node, producer, users)
        if k is None or chain is None:
            continue
        values_mm = chain[-1]
        if values_mm.attrs.get("adj_x") or values_mm.attrs.get("adj_y") or values_mm.inputs[1] is None:
            continue
        v = _cache(graph, values_mm.inputs[1], producer, users)
        if v is None or users.get(keys) != [node, *([k.dequantize] if k.dequantize else [])] or \
                users.get(v.present) != [values_mm, *([v.dequantize] if v.dequantize else [])]:
            continue
        return node, chain, k, v
    return None


def _replace(graph: Graph, scores_mm: Node, chain: tuple[Node, ...], k: _Cache, v: _Cache, max_context: int,
             index: int) -> None:
    q = scores_mm.inputs[0]
    assert q is not None
    _, heads, _, head_dim = k.present.shape
    softmax, values_mm = chain[0], chain[-1]
    probs = chain[-2].outputs[0] if len(chain) == 3 else softmax.outputs[0]
    att = values_mm.outputs[0]
    name = f"kv_cache{index}"

    def flat(t: Tensor, suffix: str) -> tuple[Tensor, Node]:
        out = _tensor(f"{name}_{suffix}", (heads, head_dim), t)
        return out, Node("reshape", out.name, [t], [out])

    (q2, rq), (k2, rk), (v2, rv) = flat(q, "q"), flat(k.new, "k"), flat(v.new, "v")
    k_cache = _tensor(f"{name}_keys", (heads, max_context, head_dim), k.present, variable=True)
    v_cache = _tensor(f"{name}_values", (heads, max_context, head_dim), v.present, variable=True)
    position = Tensor(f"{name}_position", (1,), DType.INT32, variable=True)
    out = _tensor(f"{name}_out", (heads, head_dim), att)
    scores = scores_mm.outputs[0]
    assert scores.quant is not None and probs.quant is not None
    attrs = {"scores_scale": float(scores.quant.scale[0]), "scores_zero_point": int(scores.quant.zero_point[0]),
             "probs_scale": float(probs.quant.scale[0]), "probs_zero_point": int(probs.quant.zero_point[0])}
    attention = Node("cached_attention", name, [q2, k2, v2, k_cache, v_cache, position], [out], attrs)
    back = Node("reshape", att.name, [out], [att])
    gone = {id(n) for n in (k.quantize, k.concat, v.quantize, v.concat, scores_mm, *chain,
                            *(c.dequantize for c in (k, v) if c.dequantize))}
    at = graph.nodes.index(values_mm)
    kept_before = [n for n in graph.nodes[:at] if id(n) not in gone]
    kept_after = [n for n in graph.nodes[at + 1:] if id(n) not in gone]
    graph.nodes[:] = [*kept_before, rq, rk, rv, attention, back, *kept_after]
    graph.inputs[:] = [t for t in graph.inputs if t not in (k.past, v.past)]
    graph.outputs[:] = [t for t in graph.outputs if t not in (k.output, v.output)]
