"""ONNX data-movement ops: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, MaxPool, GlobalMaxPool, Pad,
Identity, Dropout, and the constant helpers Constant and Shape.

They commute with dequantization (and MaxPool with quantization, being monotonic), so in a QDQ graph
they apply to the int8 tensor and the result stays a dequantized view; in QOperator and integer-dialect
graphs they see int8 (or, for the layout ops, int32) activations directly. Transpose moves no data.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import lower, lower_pool
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.qdq import WINDOW, Handler, act_input, pending
from mote.frontend.onnx.values import Act, Const, Deq, Pending, QConst, Value, once, to_int8
from mote.ir import DType


def view(ctx: Context, node: Any, fn: Callable[[Act], Act]) -> list[Value]:
    """Apply a data-movement function to an activation, a dequantized view, or a float value: quantized with
    the parameters of the QuantizeLinear after it, moved in float32 where a float op takes it (floats.py)."""
    v = ctx.value(node, 0)
    name = node.output[0]
    if isinstance(v, Deq):
        return [Deq(fn(v.act))]
    if isinstance(v, Act) and v.tensor.dtype is DType.FLOAT32:
        # A float value straight into a data-movement op: quantize it with the output's parameters first.
        out = pending(ctx, node, lambda q, lo, hi, act: fn(lower.quantize(ctx.b, v, q, f"{name}_q")),
                      clampable=False)
        return [replace(out[0], as_float=once(lambda: fn(v)))]
    if isinstance(v, Pending) and v.as_float is not None:  # data movement commutes with quantization
        build, as_float = v.build, v.as_float
        return [Pending(node.op_type, name, lambda q, lo, hi: fn(build(q, lo, hi)), clampable=False,
                        as_float=once(lambda: fn(as_float())))]
    if isinstance(v, Act):
        return [fn(v)]
    act_input(ctx, node, 0)  # raises the right message
    return []


def reshape(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    spec = [int(d) for d in ctx.const(node, 1, "shape").reshape(-1)]
    name = node.output[0]
    return view(ctx, node, lambda x: lower.reshape(
        ctx.b, x, lower.resolve_shape(x.onnx_shape, spec, bool(attrs.get("allowzero", 0)), name), name))


def flatten(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    name = node.output[0]

    def fn(x: Act) -> Act:
        axis = int(attrs.get("axis", 1)) % (x.rank + 1)
        s = x.onnx_shape
        return lower.reshape(ctx.b, x, (math.prod(s[:axis]), math.prod(s[axis:])), name)

    return view(ctx, node, fn)


def squeeze_unsqueeze(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = [int(a) for a in ctx.const(node, 1, "axes").reshape(-1)]
    name = node.output[0]

    def fn(x: Act) -> Act:
        s = list(x.onnx_shape)
        if node.op_type == "Squeeze":
            drop = {a % len(s) for a in axes} if axes else {i for i, d in enumerate(s) if d == 1}
            shape = [d for i, d in enumerate(s) if i not in drop]
        else:
            rank = len(s) + len(axes)
            ins = sorted(a % rank for a in axes)
            for a in ins:
                s.insert(a, 1)
            shape = s
        return lower.reshape(ctx.b, x, tuple(shape), name)

    return view(ctx, node, fn)


def transpose(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return view(ctx, node, lambda x: lower.transpose(x, attrs.get("perm")))


def max_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    if len(node.output) > 1 and node.output[1]:
        raise UnsupportedError(f"{ctx.where(node)}: MaxPool's Indices output is not supported")
    name = node.output[0]
    return view(ctx, node, lambda x: _int8_only(x, name) or lower_pool.max_pool(ctx.b, x, attrs, name))


def global_max_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    name = node.output[0]
    return view(ctx, node, lambda x: lower_pool.max_pool(ctx.b, x, {}, name, global_pool=True))


def _int8_only(x: Act, name: str) -> None:
    if x.tensor.dtype is not DType.INT8:
        raise UnsupportedError(f"{name}: pooling needs int8 values (got {x.tensor.dtype.value}); requantize first")


def pad(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    where, name = ctx.where(node), node.output[0]
    mode = attrs.get("mode", "constant")
    if mode != "constant":
        raise UnsupportedError(f"{where}: Pad mode {mode!r} is not supported (only 'constant')")
    stored_value: int | None = None  # QOperator: the pad value is an integer of the tensor's type
    if "pads" in attrs:  # opset < 11
        pads, value = [int(p) for p in attrs["pads"]], float(attrs.get("value", 0.0))
    else:
        pads = [int(p) for p in ctx.const(node, 1, "pads").reshape(-1)]
        v = ctx.value(node, 2)
        raw = None if v is None or isinstance(v, QConst) else ctx.const(node, 2, "pad value")
        if raw is not None and raw.dtype in (np.int8, np.uint8):
            stored_value = int(to_int8(raw).reshape(-1)[0])
        value = 0.0 if v is None else float(np.asarray(v.real() if isinstance(v, QConst) else raw).reshape(-1)[0])
        if len(node.input) > 3 and node.input[3]:
            axes = [int(a) for a in ctx.const(node, 3, "axes").reshape(-1)]
            pads = _full_pads(ctx, node, pads, axes)

    def fn(x: Act) -> Act:
        if stored_value is not None:
            return lower.pad(ctx.b, x, pads, stored_value, name)
        q = x.tensor.quant
        scale, zp = (q.scale[0], q.zero_point[0]) if q is not None else (1.0, 0)
        stored = value / scale + zp
        if abs(stored - round(stored)) > 1e-3:
            raise UnsupportedError(f"{where}: the pad value {value:g} is not representable in the tensor's "
                                   "quantization")
        return lower.pad(ctx.b, x, pads, int(round(stored)), name)

    return view(ctx, node, fn)


def _full_pads(ctx: Context, node: Any, pads: list[int], axes: list[int]) -> list[int]:
    v = ctx.value(node, 0)
    rank = (v.act if isinstance(v, Deq) else v).rank  # type: ignore[union-attr]
    full = [0] * (2 * rank)
    for i, a in enumerate(axes):
        full[a % rank], full[a % rank + rank] = pads[i], pads[i + len(axes)]
    return full


def identity_op(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return [ctx.value(node, 0)] + [None] * (len(node.output) - 1)


def constant(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    from onnx import numpy_helper

    a = next(iter(node.attribute))
    if a.name == "value":
        return [Const(numpy_helper.to_array(a.t))]
    (key, value), = attrs.items()
    dtypes = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64}
    if key not in dtypes:
        raise UnsupportedError(f"{ctx.where(node)}: Constant attribute {key!r} is not supported")
    return [Const(np.array(value, dtype=dtypes[key]))]


def shape(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    v = ctx.value(node, 0)
    act = v.act if isinstance(v, Deq) else v
    if not isinstance(act, Act):
        raise UnsupportedError(f"{ctx.where(node)}: Shape of a pending value")
    s = np.array(act.onnx_shape, dtype=np.int64)
    start, end = attrs.get("start", 0), attrs.get("end", len(s))
    return [Const(s[start:end])]


HANDLERS: dict[str, tuple[Handler, set[str]]] = {
    "Reshape": (reshape, {"allowzero"}),
    "Flatten": (flatten, {"axis"}),
    "Squeeze": (squeeze_unsqueeze, {"axes"}),
    "Unsqueeze": (squeeze_unsqueeze, {"axes"}),
    "Transpose": (transpose, {"perm"}),
    "MaxPool": (max_pool, WINDOW | {"storage_order"}),
    "GlobalMaxPool": (global_max_pool, set()),
    "Pad": (pad, {"mode", "pads", "value"}),
    "Identity": (identity_op, set()),
    "Dropout": (identity_op, {"seed", "ratio"}),
    "Constant": (constant, {"value", "value_float", "value_floats", "value_int", "value_ints"}),
    "Shape": (shape, {"start", "end"}),
}
