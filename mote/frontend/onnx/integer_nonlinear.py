"""Integer-dialect ONNX: the nonlinear operators of Deeploy's integer networks (I-BERT-style softmax, norms,
GELU, hard swish, divisions), each one mote op computing Deeploy's kernel's integers exactly.

Attributes may be ints or one-element tensors (integer_values.attr_int). Row-wise ops (softmaxes, norms) work
on the ONNX layout's last axis, so their input is brought to that layout first; elementwise ones keep it.
Output types follow Deeploy's type inference: softmaxes unsigned (stored with zero point -n_levels / 2),
iLayerNorm signed, iRMSNorm and iNoNorm like their input, iGELU / iHardswish / divisions int32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import qdq
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.integer_values import ACC, SIGNED8, activation, attr_float, attr_int, integers
from mote.frontend.onnx.values import Act, Const, Value, identity
from mote.ir import DType, Quant
from mote.ops.dialect_int import log2_floor
from mote.ops.true_integer_div import factor


def _rows(ctx: Context, node: Any, attrs: dict, axis_name: str = "axis") -> Act:
    """The int8 input in ONNX layout, checked to be normalized over its last axis."""
    x = activation(ctx, node, 0)
    axis = attr_int(ctx, node, attrs, axis_name, -1)
    if axis not in (-1, x.rank - 1):
        raise UnsupportedError(f"{ctx.where(node)}: axis {axis}; only the last axis is supported")
    return ctx.b.to_layout(x, identity(x.rank))


def _softmax_quant(n_levels: int) -> Quant:
    return Quant((1.0,), (-(n_levels // 2),))


def _levels(ctx: Context, node: Any, attrs: dict) -> int:
    n = attr_int(ctx, node, attrs, "n_levels", 256)
    if not 2 <= n <= 256:
        raise UnsupportedError(f"{ctx.where(node)}: n_levels {n}; at most 256 levels fit the int8 output")
    return n


def isoftmax(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, n = _rows(ctx, node, attrs), _levels(ctx, node, attrs)
    coeffs = {k: attr_int(ctx, node, attrs, name) for k, name in
              (("coeff_a", "coeffA"), ("coeff_b", "coeffB"), ("coeff_c", "coeffC"), ("log2", "log2"))}
    out = ctx.b.node("isoftmax", [x.tensor], node.output[0], DType.INT8, _softmax_quant(n), {**coeffs, "n_levels": n})
    return [Act(out, x.perm)]


def ita_max(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, n = _rows(ctx, node, attrs), _levels(ctx, node, attrs)
    out = ctx.b.node("ita_max", [x.tensor], node.output[0], DType.INT8, _softmax_quant(n), {"n_levels": n})
    return [Act(out, x.perm)]


def ita_partial_max(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, n = _rows(ctx, node, attrs), _levels(ctx, node, attrs)
    width = attr_int(ctx, node, attrs, "group_width")
    out = ctx.b.node("ita_partial_max", [x.tensor], node.output[0], DType.INT8, _softmax_quant(n),
                     {"n_levels": n, "group_width": width})
    return [Act(out, x.perm)]


def _vector(ctx: Context, node: Any, i: int, what: str, length: int, lo: int, hi: int) -> np.ndarray:
    data = integers(ctx, node, i, what, lo, hi)
    if data.size != length:
        raise UnsupportedError(f"{ctx.where(node)}: the {what} holds {data.size} values; the normalized axes have "
                               f"{length}")
    return data.reshape(-1)


def ilayernorm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = _rows(ctx, node, attrs), node.output[0]
    length = x.tensor.shape[-1]
    w = _vector(ctx, node, 1, "weight", length, -2**31, 2**31 - 1)
    bias = _vector(ctx, node, 2, "bias", length, -2**31, 2**31 - 1)
    b = ctx.b
    out = b.node("ilayernorm", [x.tensor, b.const(f"{name}_weight", w, DType.INT32),
                                b.const(f"{name}_bias", bias, DType.INT32)], name, DType.INT8, SIGNED8,
                 {"log2d": log2_floor(attr_float(ctx, node, attrs, "D"))})
    return [Act(out, x.perm)]


def irmsnorm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0)
    x = ctx.b.to_layout(x, identity(x.rank))
    name, shape = node.output[0], x.tensor.shape
    axis = attr_int(ctx, node, attrs, "axis", -1) % max(len(shape), 1)
    if attr_int(ctx, node, attrs, "stash_type", 1) != 1:
        raise UnsupportedError(f"{ctx.where(node)}: stash_type must be 1")
    length = int(np.prod(shape[axis:]))
    w = _vector(ctx, node, 1, "weight", length, -2**31, 2**31 - 1)
    out = ctx.b.node("irmsnorm", [x.tensor, ctx.b.const(f"{name}_weight", w, DType.INT32)], name, DType.INT8,
                     x.tensor.quant, {"log2d": log2_floor(attr_float(ctx, node, attrs, "D"))})
    return [Act(out, x.perm)]


def igelu(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0)
    out = ctx.b.node("igelu", [x.tensor], node.output[0], DType.INT32, ACC,
                     {"b": attr_int(ctx, node, attrs, "b"), "one": attr_int(ctx, node, attrs, "one")})
    return [Act(out, x.perm)]


def ihardswish(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0)
    k = {name: attr_int(ctx, node, attrs, name) for name in ("one_over_six", "three", "six")}
    out = ctx.b.node("ihardswish", [x.tensor], node.output[0], DType.INT32, ACC, k)
    return [Act(out, x.perm)]


def inonorm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0)
    x = ctx.b.to_layout(x, identity(x.rank))
    name, b = node.output[0], ctx.b
    w = integers(ctx, node, 1, "weights", -128, 127)
    bias = integers(ctx, node, 2, "bias")
    out = b.node("inonorm", [x.tensor, b.const(f"{name}_weight", w, DType.INT8),
                             b.const(f"{name}_bias", bias, DType.INT32)], name, DType.INT8, x.tensor.quant,
                 {"mul": attr_int(ctx, node, attrs, "mul"), "log2d": log2_floor(attr_float(ctx, node, attrs, "D"))})
    return [Act(out, x.perm)]


def _int32_operand(ctx: Context, node: Any, i: int, like: Act) -> Any:
    v = ctx.value(node, i)
    if isinstance(v, Const):
        data = integers(ctx, node, i, "constant operand")
        data = data.reshape((1,) * (like.rank - data.ndim) + data.shape)
        return ctx.b.const(f"{node.output[0]}_operand{i}", data, DType.INT32, ACC)
    a = activation(ctx, node, i, int8=False)
    if a.tensor.dtype is not DType.INT32:
        raise UnsupportedError(f"{ctx.where(node)}: input {node.input[i]!r} is int8; IntegerDiv divides int32 "
                               "accumulators")
    return ctx.b.to_layout(a, identity(a.rank)).tensor


def integer_div(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    a = activation(ctx, node, 0, int8=False)
    a_t = _int32_operand(ctx, node, 0, a)
    b_t = _int32_operand(ctx, node, 1, a)
    k = {"delta": attr_int(ctx, node, attrs, "Delta"), "eps": attr_int(ctx, node, attrs, "eps"),
         "eta": attr_int(ctx, node, attrs, "eta")}
    out = ctx.b.node("integer_div", [a_t, b_t], node.output[0], DType.INT32, ACC, k)
    return [Act(out, identity(a.rank))]


def true_integer_div(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = activation(ctx, node, 0)
    f = factor(*(attr_float(ctx, node, attrs, k) for k in ("Delta", "eta", "y", "eps")))
    out = ctx.b.node("true_integer_div", [x.tensor], node.output[0], DType.INT32, ACC, {"factor": f})
    return [Act(out, x.perm)]


HANDLERS: dict[tuple[str, str], tuple[qdq.Handler, set[str]]] = {
    ("", "iSoftmax"): (isoftmax, {"coeffA", "coeffB", "coeffC", "log2", "n_levels", "axis"}),
    ("", "ITAMax"): (ita_max, {"n_levels", "axis"}),
    ("", "ITAPartialMax"): (ita_partial_max, {"group_width", "n_levels", "axis"}),
    ("", "iLayerNorm"): (ilayernorm, {"D", "n_levels", "axis"}),
    ("", "iRMSNorm"): (irmsnorm, {"D", "n_levels", "axis", "stash_type"}),
    ("", "iGELU"): (igelu, {"b", "one"}),
    ("", "iHardswish"): (ihardswish, {"one_over_six", "three", "six"}),
    ("", "iNoNorm"): (inonorm, {"D", "mul", "n_levels"}),
    ("", "IntegerDiv"): (integer_div, {"Delta", "eps", "eta"}),
    ("", "TrueIntegerDiv"): (true_integer_div, {"Delta", "eps", "eta", "y"}),
}
