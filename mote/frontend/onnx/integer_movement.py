"""Integer-dialect data movement and reductions on int8 / int32 activations, with Deeploy's semantics.

Concat of mixed types (signed and unsigned 8-bit, 32-bit) widens every input to int32 first; empty
constants (a KV cache of length 0) are dropped. Slice and Gather (constant indices) are strided copies.
ReduceSum / ReduceMean / IntegerMean sum exactly (a 1x1 convolution with weights 1 over the reduced axes,
which the layout brings last); the mean divides as Deeploy's generic kernel does (a RequantShift by n): over
a power-of-two length it shifts, rounding halves up; over another length it divides (sum + sign * (n >> 1)) / n,
truncating, so that halves round away from zero.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import movement
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.integer_values import ACC, activation, attr_int, int_type, integers
from mote.frontend.onnx.values import NHWC, Act, Const, Value, identity, storage_of
from mote.ir import DType


def widen(ctx: Context, x: Act, name: str) -> Act:
    """An int8 activation as int32 values (x - zero point); int32 unchanged."""
    if x.tensor.dtype is DType.INT32:
        return x
    zero = ctx.b.const(f"{name}_zero", np.zeros((1,), np.int32), DType.INT32, ACC)
    return Act(ctx.b.node("add_s32", [x.tensor, zero], name, DType.INT32, ACC), x.perm)


def concat(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    name = node.output[0]
    values = [ctx.value(node, i) for i in range(len(node.input))]
    values = [v for v in values if not (isinstance(v, Const) and v.data.size == 0)]
    acts = [v for v in values if isinstance(v, Act)]
    if not acts:
        raise UnsupportedError(f"{ctx.where(node)}: every input is a constant")
    for i, v in enumerate(values):
        if not isinstance(v, (Act, Const)):
            raise UnsupportedError(f"{ctx.where(node)}: input {i} is not an integer value")
    if len(values) == 1:
        return [acts[0]]
    like = acts[0]
    axis = attr_int(ctx, node, attrs, "axis") % like.rank
    uniform = all(a.tensor.dtype is like.tensor.dtype and a.tensor.quant == like.tensor.quant for a in acts)
    constants_fit = like.tensor.dtype is DType.INT32 or len(acts) == len(values)  # constants may need 32 bits
    same = uniform and constants_fit
    dtype, quant = (like.tensor.dtype, like.tensor.quant) if same else (DType.INT32, ACC)
    tensors = []
    for i, v in enumerate(values):
        if isinstance(v, Act):
            a = ctx.b.to_layout(v if same else widen(ctx, v, f"{name}_in{i}"), like.perm)
            tensors.append(a.tensor)
        else:
            data = np.asarray(v.data, np.float64)
            if not np.array_equal(data, np.round(data)):
                raise UnsupportedError(f"{ctx.where(node)}: constant input {i} does not hold integers")
            zp = quant.zero_point[0] if quant is not None else 0
            tensors.append(ctx.b.const(f"{name}_in{i}", storage_of(data + zp, like.rank, like.perm), dtype, quant))
    out = ctx.b.node("concatenation", tensors, name, dtype, quant, {"axis": like.perm.index(axis)})
    return [Act(out, like.perm)]


def pad(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Pad with `pads` as an attribute (opset < 11, as Deeploy's exporters write it) or as an input."""
    v = ctx.value(node, 0)
    if isinstance(v, Act) and v.tensor.dtype is DType.INT32 and attr_int(ctx, node, attrs, "value", 0) != 0:
        raise UnsupportedError(f"{ctx.where(node)}: int32 padding with a value other than 0")
    return movement.pad(ctx, node, attrs)


def slice_(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0, int8=False)
    x = ctx.b.to_layout(x, identity(x.rank))
    shape = x.onnx_shape
    if "starts" in attrs:  # opset < 10
        starts, ends = list(attrs["starts"]), list(attrs["ends"])
        axes = list(attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = (list(integers(ctx, node, i, w, -2**63, 2**63 - 1)) for i, w in ((1, "starts"), (2, "ends")))
        axes = list(integers(ctx, node, 3, "axes", -64, 64)) if len(node.input) > 3 and node.input[3] \
            else list(range(len(starts)))
        steps = list(integers(ctx, node, 4, "steps", -2**31, 2**31)) if len(node.input) > 4 and node.input[4] \
            else [1] * len(starts)
    begin, end, stride = [0] * x.rank, list(shape), [1] * x.rank
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = int(a) % x.rank
        if st <= 0:
            raise UnsupportedError(f"{ctx.where(node)}: Slice steps must be positive")
        n = shape[a]
        s, e = int(s), int(e)
        s = max(0, min(n, s + n if s < 0 else s))
        e = max(0, min(n, e + n if e < 0 else e))
        begin[a], end[a], stride[a] = s, max(s, e), int(st)
    return [_strided(ctx, x, begin, end, stride, node.output[0])]


def _strided(ctx: Context, x: Act, begin: list[int], end: list[int], stride: list[int], name: str,
             shrink: int = 0) -> Act:
    b = ctx.b
    consts = [b.const(f"{name}_{w}", np.asarray(v, np.int32), DType.INT32) for w, v in
              (("begin", begin), ("end", end), ("strides", stride))]
    out = b.node("strided_slice", [x.tensor, *consts], name, x.tensor.dtype, x.tensor.quant,
                 {"shrink_axis_mask": shrink})
    return Act(out, identity(len(out.shape)))


def gather(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Gather on integers: one constant index as a strided copy (any type); several constant indices, or run-time
    indices into a constant table (an embedding), through the gather op (8-bit values)."""
    name = node.output[0]
    v, idx = ctx.value(node, 0), ctx.value(node, 1)
    if isinstance(v, Act) and not isinstance(idx, Act):
        x = ctx.b.to_layout(activation(ctx, node, 0, int8=False), identity(v.rank))
        axis = attr_int(ctx, node, attrs, "axis", 0) % x.rank
        n = x.onnx_shape[axis]
        index = integers(ctx, node, 1, "indices", -n, n - 1)
        if index.size == 1:
            i = int(index.reshape(-1)[0]) % n
            begin, end = [0] * x.rank, list(x.onnx_shape)
            begin[axis], end[axis] = i, i + 1
            shrink = 1 << axis if index.ndim == 0 else 0
            return [_strided(ctx, x, begin, end, [1] * x.rank, name, shrink)]
        table = x
        indices = ctx.b.const(f"{name}_indices", index % n, DType.INT32)
    elif isinstance(v, Const) and isinstance(idx, Act):
        data = integers(ctx, node, 0, "data")
        if data.min(initial=0) < -128 or data.max(initial=0) > 127:
            raise UnsupportedError(f"{ctx.where(node)}: a Gather table of values beyond 8 bits is not supported")
        table = Act(ctx.b.const(f"{name}_table", data, DType.INT8, ACC), identity(data.ndim))
        axis = attr_int(ctx, node, attrs, "axis", 0) % data.ndim
        i_act = ctx.b.to_layout(activation(ctx, node, 1, int8=False), identity(idx.rank))
        indices = widen(ctx, i_act, f"{name}_indices").tensor
    else:
        raise UnsupportedError(f"{ctx.where(node)}: Gather of a run-time value by run-time indices is not supported")
    if table.tensor.dtype is not DType.INT8:
        raise UnsupportedError(f"{ctx.where(node)}: Gather of several indices takes 8-bit values")
    out = ctx.b.node("gather", [table.tensor, indices], name, DType.INT8, table.tensor.quant, {"axis": axis})
    return [Act(out, identity(len(out.shape)))]


def _axes(ctx: Context, node: Any, attrs: dict, rank: int) -> list[int]:
    if "axes" in attrs:
        axes = [int(a) for a in np.asarray(attrs["axes"]).reshape(-1)]
    elif len(node.input) > 1 and node.input[1]:
        axes = [int(a) for a in integers(ctx, node, 1, "axes", -64, 64)]
    else:
        axes = list(range(rank))
    return sorted({a % rank for a in axes})


def _window_sum(ctx: Context, x: Act, axes: list[int], name: str) -> tuple[Act, int, tuple[int, ...]]:
    """The exact int32 sums over `axes` (reduced axes dropped), their count, and the kept axes' ONNX shape."""
    if x.tensor.dtype is not DType.INT8:
        raise UnsupportedError(f"{name}: integer reductions take 8-bit values (got {x.tensor.dtype.value})")
    shape = x.onnx_shape
    kept = [a for a in range(x.rank) if a not in axes]
    order = tuple(kept + axes)
    moved = ctx.b.to_layout(x, order)
    rows, length = math.prod(shape[a] for a in kept), math.prod(shape[a] for a in axes)
    flat = Act(ctx.b.reshape(moved.tensor, (rows, 1, 1, length), f"{name}_rows"), NHWC)
    ones = ctx.b.const(f"{name}_ones", np.ones((1, 1, 1, length), np.int8), DType.INT8)
    acc = ctx.b.node("conv2d_s32", [flat.tensor, ones, None], f"{name}_sum", DType.INT32, ACC,
                     {"stride": (1, 1), "pads": (0, 0, 0, 0)})
    return Act(acc, identity(4)), length, tuple(shape[a] for a in kept)


def _reduce(ctx: Context, node: Any, attrs: dict, mean: bool) -> list[Value]:
    x = activation(ctx, node, 0, int8=False)
    name = node.output[0]
    axes = _axes(ctx, node, attrs, x.rank)
    keepdims = attr_int(ctx, node, attrs, "keepdims", 1)
    acc, length, kept_shape = _window_sum(ctx, x, axes, name)
    out_shape = tuple(1 if a in axes else d for a, d in enumerate(x.onnx_shape)) if keepdims else kept_shape
    b = ctx.b
    if not mean:
        return [Act(b.reshape(acc.tensor, out_shape or (1,), name), identity(len(out_shape or (1,))))]
    t = int_type(x)
    one = b.const(f"{name}_mul", np.ones((1,), np.int32), DType.INT32)
    zero = b.const(f"{name}_add", np.zeros((1,), np.int32), DType.INT32)
    y = b.node("requant_shift", [acc.tensor, one, zero], f"{name}_mean", DType.INT8, t.quant,
               {"divisor": length, "n_levels": 256, "signed": t.signed,
                "ties": "up" if length & (length - 1) == 0 else "away"})
    return [Act(b.reshape(y, out_shape or (1,), name), identity(len(out_shape or (1,))))]


def reduce_sum(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return _reduce(ctx, node, attrs, mean=False)


def reduce_mean(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return _reduce(ctx, node, attrs, mean=True)


HANDLERS: dict[tuple[str, str], tuple[Any, set[str]]] = {
    ("", "Concat"): (concat, {"axis"}),
    ("", "Pad"): (pad, {"mode", "pads", "value"}),
    ("", "Slice"): (slice_, {"starts", "ends", "axes"}),
    ("", "Gather"): (gather, {"axis"}),
    ("", "ReduceSum"): (reduce_sum, {"axes", "keepdims", "noop_with_empty_axes"}),
    ("", "ReduceMean"): (reduce_mean, {"axes", "keepdims"}),
    ("", "IntegerMean"): (reduce_mean, {"axes", "keepdims"}),
}
