"""A small decoder step model built directly in mote's IR: embedding and learned position (GATHER, ADD), query,
key and value (FULLY_CONNECTED), cached_attention over a KV cache, an output projection with a residual and the
logits. Random int8 weights; enough to check the autoregressive API, not a trained model."""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Graph, Node, Quant, Tensor

VOCAB, DIM, HEADS = 24, 16, 2


def _q(scale: float, zero_point: int = 0) -> Quant:
    return Quant((scale,), (zero_point,))


def decoder_graph(max_context: int = 8, seed: int = 0, with_position: bool = True) -> Graph:
    rng = np.random.default_rng(seed)

    def weights(name: str, shape: tuple[int, ...], scale: float) -> Tensor:
        return Tensor(name, shape, DType.INT8, _q(scale), rng.integers(-127, 128, shape).astype(np.int8))

    def act(name: str, shape: tuple[int, ...], scale: float, zero_point: int = 0) -> Tensor:
        return Tensor(name, shape, DType.INT8, _q(scale, zero_point))

    hd = DIM // HEADS
    token = Tensor("token", (1,), DType.INT32)
    pos = Tensor("pos", (1,), DType.INT32)
    emb, pe = act("emb", (1, DIM), 0.02), act("pe", (1, DIM), 0.02)
    x = act("x", (1, DIM), 0.03, 2)
    nodes = [Node("gather", "emb", [weights("embed", (VOCAB, DIM), 0.02), token], [emb], {"axis": 0})]
    if with_position:
        nodes += [Node("gather", "pe", [weights("positions", (64, DIM), 0.02), pos], [pe], {"axis": 0}),
                  Node("add", "x", [emb, pe], [x])]
    else:
        x = emb
    qkv = []
    for name, scale, zp in (("q", 0.05, 1), ("k", 0.05, -3), ("v", 0.04, 5)):
        flat, heads = act(name, (1, DIM), scale, zp), act(f"{name}_heads", (HEADS, hd), scale, zp)
        nodes += [Node("fully_connected", name, [x, weights(f"w{name}", (DIM, DIM), 0.01), None], [flat]),
                  Node("reshape", f"{name}_heads", [flat], [heads])]
        qkv.append(heads)
    kc = Tensor("k_cache", (HEADS, max_context, hd), DType.INT8, qkv[1].quant, variable=True)
    vc = Tensor("v_cache", (HEADS, max_context, hd), DType.INT8, qkv[2].quant, variable=True)
    position = Tensor("position", (1,), DType.INT32, variable=True)
    att, att_flat = act("att", (HEADS, hd), 0.03, -2), act("att_flat", (1, DIM), 0.03, -2)
    o, h = act("o", (1, DIM), 0.05), act("h", (1, DIM), 0.06, 1)
    logits = act("logits", (1, VOCAB), 0.1, -4)
    nodes += [Node("cached_attention", "attention", [*qkv, kc, vc, position], [att],
                   {"scores_scale": 0.08, "scores_zero_point": 0}),
              Node("reshape", "att_flat", [att], [att_flat]),
              Node("fully_connected", "o", [att_flat, weights("wo", (DIM, DIM), 0.01), None], [o]),
              Node("add", "h", [x, o], [h]),
              Node("fully_connected", "logits", [h, weights("head", (VOCAB, DIM), 0.01), None], [logits])]
    return Graph("decoder", [token, pos] if with_position else [token], [logits], nodes)
