"""Cached attention: one decoding step of multi-head self-attention over a KV cache kept as state.

A decoder run token by token recomputes nothing for the tokens it has seen: each attention layer keeps
their keys and values. In an exported step graph that cache is an explicit input and output
(`present_k = Concat(past_k, k)`, then Softmax(q present_k^T) present_v); compiled, it becomes this op,
whose cache is state (mote.memory.state) sized at compile time for the maximum context and kept across
calls like an SVDF's memory; model_reset() empties it.

Inputs: q, k, v int8 [heads, head_dim] (this token's query, key and value), then three variable tensors:
the key and value caches, int8 [heads, max_context, head_dim] quantized as k and v (the cache holds
k and v as they come), and the position, int32 [1]: how many tokens the cache holds. Output: int8
[heads, head_dim]. Attributes: the scores' quantization (`scores_scale`, `scores_zero_point`) and the
probabilities' (`probs_scale`, `probs_zero_point`; by default the softmax's own, 1/256 and -128).

Each call, with n = position + 1 (an error once position reaches max_context: the context is full):
1. k and v are written into row `position` of the caches; position becomes n;
2. per head, for j < n: s[j] = clamp(requantize(sum_d (q[d] - zq) (K[j][d] - zk), sq sk / ss) + zs);
3. p = the int8 softmax of s[0..n-1] (TFLite Micro's, beta 1; probabilities at scale 1/256, zero point -128),
   requantized to the probabilities' quantization when it differs (QUANTIZE int8 -> int8: onnxruntime keeps
   softmax outputs at 1/255);
4. out[d] = clamp(requantize(sum_j (p[j] - zp) (V[j][d] - zv), sp sv / so) + zo).

That is exactly BATCH_MATMUL, SOFTMAX, (QUANTIZE,) BATCH_MATMUL (TFLite Micro's int8 semantics, as mote's ops
compute them) on caches holding the n live rows: the cost of a step grows with the live context, not with the
maximum one, in the C kernel and in the reference alike. Only the first n rows of the caches are ever
read, so rows beyond them may hold anything. The C kernel takes the softmax's exponentials from a table of the
256 differences an int8 row can hold, computed here with the reference's fixed point (the same values, a load
instead of gemmlowp's polynomial), and folds the zero points out of its dot products.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.errors import MoteError
from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops import softmax as softmax_op
from mote.ops.output_stage import output_stage
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

PROBS_SCALE, PROBS_ZERO_POINT = 1.0 / 256, -128  # TFLite Micro's int8 softmax output


class ContextFullError(MoteError):
    """A step past the maximum context the caches were sized for."""


@dataclass(frozen=True)
class CachedAttentionParams:
    heads: int
    head_dim: int
    max_context: int
    q_offset: int  # -zq
    k_offset: int  # -zk
    v_offset: int  # -zv
    scores_offset: int  # zs
    scores_multiplier: int
    scores_shift: int
    output_offset: int  # zo
    output_multiplier: int
    output_shift: int
    requantize_probs: int  # 1: the probabilities are requantized from the softmax's 1/256, -128
    probs_offset: int  # zp
    probs_multiplier: int
    probs_shift: int
    softmax: softmax_op.SoftmaxParams  # for one row; its depth is set per call
    exp_table: np.ndarray  # int32 [256]: the softmax's exp of each difference d = -i (i = 0..255), Q0; 0 below diff_min


def _f32(x: float) -> float:
    return float(np.float32(x))


def check(node: Node) -> None:
    checks.input_count(node, 6)
    q, k, v = (checks.int8_activation(node, node.inputs[i], role) for i, role in enumerate(("query", "key", "value")))
    for t, role in ((q, "query"), (k, "key"), (v, "value")):
        checks.rank(node, t, role, 2)
        if t.shape != q.shape:
            raise checks.fail(node, f"the {role} is {list(t.shape)}, the query {list(q.shape)}; they must match")
    heads, head_dim = q.shape
    for i, (role, like) in enumerate((("key cache", k), ("value cache", v)), start=3):
        cache = checks.present(node, i, role)
        if not cache.variable or cache.dtype is not DType.INT8 or len(cache.shape) != 3 or \
                (cache.shape[0], cache.shape[2]) != (heads, head_dim) or cache.shape[1] < 1:
            raise checks.fail(node, f"the {role} {cache.name!r} must be int8 state [{heads}, max_context, {head_dim}]")
        if cache.quant != like.quant:
            raise checks.fail(node, f"the {role} {cache.name!r} must be quantized as the {role.split()[0]}")
    caches = node.inputs[3], node.inputs[4]
    if caches[0].shape != caches[1].shape:  # type: ignore[union-attr]
        raise checks.fail(node, "the key and value caches must have the same maximum context")
    pos = checks.present(node, 5, "position")
    if not pos.variable or pos.dtype is not DType.INT32 or pos.shape != (1,):
        raise checks.fail(node, f"the position {pos.name!r} must be int32 state of shape [1]")
    out = checks.int8_activation(node, node.outputs[0], "output")
    if out.shape != q.shape:
        raise checks.fail(node, f"the output is {list(out.shape)}; the op gives {list(q.shape)}")
    scale, zero = attr(node, "scores_scale"), attr(node, "scores_zero_point")
    if not isinstance(scale, float) or not scale > 0 or not isinstance(zero, int) or not -128 <= zero <= 127:
        raise checks.fail(node, f"the scores' quantization (scale {scale!r}, zero point {zero!r}) must be a "
                                "positive scale and an int8 zero point")
    scale, zero = attr(node, "probs_scale"), attr(node, "probs_zero_point")
    if not isinstance(scale, float) or not scale > 0 or not isinstance(zero, int) or not -128 <= zero <= 127:
        raise checks.fail(node, f"the probabilities' quantization (scale {scale!r}, zero point {zero!r}) must be "
                                "a positive scale and an int8 zero point")


def _scores_softmax(node: Node, scale: float) -> softmax_op.SoftmaxParams:
    """TFLite Micro's softmax constants for scores at `scale` (beta 1), for a row of any depth."""
    probe = Node("softmax", node.name, [Tensor("s", (1, 1), DType.INT8, _quant(scale, 0))],
                 [Tensor("p", (1, 1), DType.INT8, _quant(PROBS_SCALE, PROBS_ZERO_POINT))], {"beta": 1.0})
    return softmax_op.prepare(probe)


def _quant(scale: float, zero_point: int) -> object:
    from mote.ir import Quant

    return Quant((scale,), (zero_point,))


def prepare(node: Node) -> CachedAttentionParams:
    q, k, v = (t for t in node.inputs[:3])
    assert q is not None and k is not None and v is not None
    cache = node.inputs[3]
    assert cache is not None
    out = node.outputs[0]
    ss, zs = float(attr(node, "scores_scale")), int(attr(node, "scores_zero_point"))
    ps, zp = _f32(attr(node, "probs_scale")), int(attr(node, "probs_zero_point"))
    sm, sh = quantize_multiplier(_f32(q.scale) * _f32(k.scale) / _f32(ss))
    om, osh = quantize_multiplier(ps * _f32(v.scale) / _f32(out.scale))
    requant = int((ps, zp) != (PROBS_SCALE, PROBS_ZERO_POINT))
    pm, psh = quantize_multiplier(PROBS_SCALE / ps) if requant else (0, 0)
    sp = _scores_softmax(node, ss)
    return CachedAttentionParams(q.shape[0], q.shape[1], cache.shape[1], -q.zero_point, -k.zero_point, -v.zero_point,
                                 zs, sm, sh, out.zero_point, om, osh, requant, zp, pm, psh, sp, _exp_table(sp))


def _exp_table(p: softmax_op.SoftmaxParams) -> np.ndarray:
    """The softmax's exp of every difference an int8 row can hold (mote.ops.softmax's fixed point), for the C."""
    diff = -np.arange(256, dtype=np.int64)
    used = diff >= p.diff_min
    scaled = fp.mul(np.where(used, diff, 0) << p.input_left_shift, p.input_multiplier)
    exps = fp.exp_on_negative_values(scaled, softmax_op.SCALED_DIFF_INTEGER_BITS)
    return np.where(used, exps, 0).astype(np.int32)


def shape(node: Node) -> list[tuple[int, ...]]:
    q = node.inputs[0]
    assert q is not None
    return [q.shape]


def attend(p: CachedAttentionParams, q: np.ndarray, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Steps 2-4 over caches holding exactly the live rows: q [heads, hd], keys/values [heads, n, hd] (int8)."""
    n = keys.shape[1]
    acc = np.einsum("hd,hjd->hj", q.astype(np.int64) + p.q_offset, keys.astype(np.int64) + p.k_offset)
    scores = np.clip(multiply_by_quantized_multiplier(acc, p.scores_multiplier, p.scores_shift) + p.scores_offset,
                     -128, 127).astype(np.int8)
    row = softmax_op.SoftmaxParams(p.heads, n, p.softmax.input_multiplier, p.softmax.input_left_shift,
                                   p.softmax.diff_min)
    probs = softmax_op.reference(_SOFTMAX_NODE, row, [scores])[0].astype(np.int64)
    if p.requantize_probs:
        probs = np.clip(multiply_by_quantized_multiplier(probs - PROBS_ZERO_POINT, p.probs_multiplier, p.probs_shift)
                        + p.probs_offset, -128, 127)
    total = np.einsum("hj,hjd->hd", probs - p.probs_offset, values.astype(np.int64) + p.v_offset)
    out = multiply_by_quantized_multiplier(total, p.output_multiplier, p.output_shift) + p.output_offset
    return np.clip(out, -128, 127).astype(np.int8)


_SOFTMAX_NODE = Node("softmax", "scores", [], [Tensor("probs", (1,), DType.INT8)])


def reference(node: Node, p: CachedAttentionParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Updates the caches and the position in place (they are the state arrays of mote.reference)."""
    q, k, v, keys, values, position = inputs
    pos = int(position[0])
    if pos >= p.max_context:
        raise ContextFullError(f"node {node.name!r}: the context is full ({p.max_context} tokens, the maximum "
                               "compiled for); reset the model or compile with a larger maximum context")
    keys[:, pos], values[:, pos] = k, v
    position[0] = pos + 1
    return [attend(p, np.asarray(q), keys[:, :pos + 1], values[:, :pos + 1])]


def emit(node: Node, p: CachedAttentionParams, em: Emitter) -> CCall:
    fields: dict[str, int | str] = {
        "heads": p.heads, "head_dim": p.head_dim, "max_context": p.max_context, "q_offset": p.q_offset,
        "k_offset": p.k_offset, "v_offset": p.v_offset, "scores_offset": p.scores_offset,
        "output_offset": p.output_offset,
        "scores_stage": output_stage(em, np.array([p.scores_multiplier]), np.array([p.scores_shift]),
                                     p.scores_offset, -128, 127),
        "output_stage": output_stage(em, np.array([p.output_multiplier]), np.array([p.output_shift]),
                                     p.output_offset, -128, 127),
        "probs_offset": p.probs_offset,
        "probs_table": em.const(probs_table(p), "probs_table") if p.requantize_probs else "NULL",
        "softmax_diff_min": p.softmax.diff_min, "exp_table": em.const(p.exp_table, "attention_exp_table")}
    args = [em.tensor(t) for t in node.inputs if t is not None]
    return CCall("mote_cached_attention_s8", "mote_cached_attention_params", fields,
                 [*args, em.tensor(node.outputs[0])])


def probs_table(p: CachedAttentionParams) -> np.ndarray:
    """int8 [256], by the softmax's output byte: the probability requantized to the probabilities' scale (attend)."""
    probs = np.arange(256, dtype=np.uint8).view(np.int8).astype(np.int64)
    return np.clip(multiply_by_quantized_multiplier(probs - PROBS_ZERO_POINT, p.probs_multiplier, p.probs_shift)
                   + p.probs_offset, -128, 127).astype(np.int8)


def scratch_bytes(node: Node, p: CachedAttentionParams) -> int:
    """One head's query and probabilities less their zero points (int16), its scores and probabilities (int8)."""
    return 2 * p.head_dim + 4 * p.max_context


def macs(node: Node) -> int:
    """At the full context (the cost of a step at position n is 2 * heads * head_dim * n)."""
    cache = node.inputs[3]
    assert cache is not None
    heads, max_context, head_dim = cache.shape
    return 2 * heads * max_context * head_dim


OP = register(OpDef("cached_attention", shape, prepare, reference, emit, macs, scratch_bytes, check=check,
                    attrs={"scores_scale": REQUIRED, "scores_zero_point": REQUIRED, "probs_scale": PROBS_SCALE,
                           "probs_zero_point": PROBS_ZERO_POINT}))
