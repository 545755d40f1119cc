"""Integer-dialect ONNX (QuantLib-style exports, Deeploy's input): float tensors holding integers.

Activations are int8 (value = stored - zero point: signed values with zero point 0, unsigned 8-bit values
[0, 255] with zero point -128; graph inputs typed from the values they are given, integer_io.py) or int32
(accumulators, wider inputs). Conv becomes conv2d_s32 (int32 accumulators); MatMul and Gemm conv2d_s32
(int8 activations times int8 weights, a bias per column) or matmul_s32 (activation x activation, batched,
alpha and a bias per element, int32 operands); Add, Sub and Mul add_s32; AveragePool a window sum (conv2d_s32
with weights 1) whose division the following RequantShift absorbs exactly; RequantShift requant_shift. Everything
is exact, as Deeploy's kernels compute it (int32 results wrap as int32 arithmetic does). Concat, Pad, Slice,
Gather and the reductions are in integer_movement.py; Reshape, Flatten, Transpose, MaxPool, ... are shared with
the QDQ reader.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import movement, qdq
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.integer_values import ACC, activation, attr_float, integers, output_type
from mote.frontend.onnx.values import NHWC, Act, Const, Value, as_2d, from_2d, identity, storage_of
from mote.frontend.onnx.window import attrs_2d, conv_group, window
from mote.ir import DType, Quant


def _conv_s32(ctx: Context, x: Act, weights: np.ndarray, bias: np.ndarray | None, attrs: dict, name: str) -> Act:
    """x (ONNX NCHW) convolved with OIHW int8 weights to int32 accumulators, NHWC."""
    b = ctx.b
    x = b.to_layout(x, NHWC)
    n, h, w, c = x.tensor.shape
    if weights.ndim != 4:
        raise UnsupportedError(f"{name}: weights of shape {list(weights.shape)}; a 2-D convolution needs 4-D weights")
    kh, kw = weights.shape[2:]
    conv_group(attrs, weights.shape, c, name)  # conv2d_s32 infers the groups from the weights' shape
    win = window(attrs, (h, w), (kh, kw), name)
    wt = b.const(f"{name}_weights", weights.transpose(0, 2, 3, 1), DType.INT8)
    bt = None if bias is None else b.const(f"{name}_bias", bias, DType.INT32)
    out = b.node("conv2d_s32", [x.tensor, wt, bt], name, DType.INT32, ACC,
                 {"stride": win.stride, "dilation": win.dilation, "pads": win.pads})
    return Act(out, NHWC)


def conv(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = activation(ctx, node, 0), node.output[0]
    weights = integers(ctx, node, 1, "weights", -128, 127)
    bias = integers(ctx, node, 2, "bias", -2**31, 2**31 - 1) if len(node.input) > 2 and node.input[2] else None
    if x.rank == 3:  # 1-D: as 2-D with height 1
        y = _conv_s32(ctx, as_2d(ctx.b, x, name), weights[:, :, None, :], bias, attrs_2d(attrs), name)
        return [from_2d(ctx.b, y)]
    if x.rank != 4:
        raise UnsupportedError(f"{ctx.where(node)}: {x.rank - 2}-D convolution is not supported")
    return [_conv_s32(ctx, x, weights, bias, attrs, name)]


def _operand(ctx: Context, node: Any, i: int, name: str) -> tuple[Act | None, np.ndarray | None]:
    """An input of MatMul / Gemm: an activation, or a constant's integers."""
    v = ctx.value(node, i)
    if isinstance(v, Act):
        return activation(ctx, node, i, int8=False), None
    return None, integers(ctx, node, i, f"input {i}")


def _const_tensor(ctx: Context, data: np.ndarray, name: str) -> Act:
    dtype = DType.INT8 if data.size and -128 <= data.min() and data.max() <= 127 else DType.INT32
    return Act(ctx.b.const(name, data, dtype, ACC), identity(data.ndim))


def _swap_last(x: Act) -> Act:
    """The ONNX value transposed over its last two axes (a relabelling: no data moves)."""
    p = list(range(x.rank))
    p[-2], p[-1] = p[-1], p[-2]
    return Act(x.tensor, tuple(p.index(a) for a in x.perm), x.divisor)


def _product(ctx: Context, node: Any, trans_a: bool, trans_b: bool, alpha: int, bias: np.ndarray | None) -> Act:
    """alpha * A' B' + bias on int8 / int32 values to int32 (Deeploy's MatMul and Gemm kernels), A' B' the
    operands transposed over their last two axes when asked; activation x weights through the int8
    convolution kernel when it fits (alpha 1, a bias per output column), else matmul_s32."""
    name = node.output[0]
    (a, a_data), (b, b_data) = _operand(ctx, node, 0, name), _operand(ctx, node, 1, name)
    if a is None and b is None:
        raise UnsupportedError(f"{ctx.where(node)}: both operands are constants")
    if a_data is not None:
        a = _const_tensor(ctx, np.swapaxes(a_data, -1, -2) if trans_a else a_data, f"{name}_a")
    elif trans_a:
        a = _swap_last(a)
    if b_data is not None:
        b_data = np.swapaxes(b_data, -1, -2) if trans_b else b_data
    elif trans_b:
        b = _swap_last(b)
    assert a is not None
    if a.rank < 2 or (b_data is not None and b_data.ndim < 2) or (b is not None and b.rank < 2):
        raise UnsupportedError(f"{ctx.where(node)}: 1-D matrix products are not supported")
    n = b_data.shape[-1] if b_data is not None else b.onnx_shape[-1]  # type: ignore[union-attr]
    m = a.onnx_shape[-2]
    per_column = bias is None or (bias == bias[:1]).all()
    if (b_data is not None and b_data.ndim == 2 and alpha == 1 and per_column and a.tensor.dtype is DType.INT8
            and b_data.min(initial=0) >= -128 and b_data.max(initial=0) <= 127):
        return _matmul(ctx, a, b_data.T, None if bias is None else bias[0], name)
    if b_data is not None:
        b = _const_tensor(ctx, b_data, f"{name}_b")
    assert b is not None
    a, b = ctx.b.to_layout(a, identity(a.rank)), ctx.b.to_layout(b, identity(b.rank))
    bias_t = None if bias is None else ctx.b.const(f"{name}_bias", bias.reshape(m, n), DType.INT32)
    out = ctx.b.node("matmul_s32", [a.tensor, b.tensor, bias_t], name, DType.INT32, ACC, {"alpha": alpha})
    return Act(out, identity(len(out.shape)))


def _matmul(ctx: Context, x: Act, weights: np.ndarray, bias: np.ndarray | None, name: str) -> Act:
    """x [..., K] times weights [N, K]: a 1x1 conv2d_s32 over rows."""
    b = ctx.b
    x = b.to_layout(x, identity(x.rank))
    shape = x.tensor.shape
    rows = math.prod(shape[:-1])
    flat = Act(b.reshape(x.tensor, (rows, 1, 1, shape[-1]), f"{name}_rows"), NHWC)
    y = _conv_s32(ctx, flat, weights[:, :, None, None], bias, {}, name)
    return Act(b.reshape(y.tensor, (*shape[:-1], weights.shape[0]), f"{name}_out"), identity(len(shape)))


def _int_scalar(ctx: Context, node: Any, attrs: dict, what: str) -> int:
    """Gemm's alpha / beta as Deeploy's kernel takes them: converted to int32 (toward zero)."""
    return int(attr_float(ctx, node, attrs, what, 1.0))


def gemm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    alpha, beta = _int_scalar(ctx, node, attrs, "alpha"), _int_scalar(ctx, node, attrs, "beta")
    trans_a, trans_b = bool(attrs.get("transA", 0)), bool(attrs.get("transB", 0))
    bias = None
    if len(node.input) > 2 and node.input[2]:
        if not isinstance(ctx.value(node, 2), Const):
            raise UnsupportedError(f"{ctx.where(node)}: integer Gemm needs a constant C")
        a_shape = _shape_of(ctx, node, 0)
        b_shape = _shape_of(ctx, node, 1)
        m, n = a_shape[-1 if trans_a else -2], b_shape[-2 if trans_b else -1]
        c = integers(ctx, node, 2, "C")
        bias = np.broadcast_to(c * beta, (m, n)).astype(np.int64)
        if np.abs(bias).max(initial=0) >= 2**31:
            raise UnsupportedError(f"{ctx.where(node)}: beta * C does not fit int32")
    return [_product(ctx, node, trans_a, trans_b, alpha, bias)]


def _shape_of(ctx: Context, node: Any, i: int) -> tuple[int, ...]:
    v = ctx.value(node, i)
    return v.onnx_shape if isinstance(v, Act) else tuple(ctx.const(node, i, f"input {i}").shape)


def matmul(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """MatMul, and MatMulInteger as Deeploy maps it (to MatMul: zero points, if given, must be 0)."""
    for i in (2, 3):
        if len(node.input) > i and node.input[i] and integers(ctx, node, i, "zero point").any():
            raise UnsupportedError(f"{ctx.where(node)}: MatMulInteger with a nonzero zero point is not supported")
    return [_product(ctx, node, False, False, 1, None)]


def add(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Add, Sub and Mul: exact int32 results (Deeploy's kernels on the inputs' values)."""
    vals = [ctx.value(node, i) for i in range(2)]
    acts = [activation(ctx, node, i, int8=False) for i, v in enumerate(vals) if isinstance(v, Act)]
    if not acts:
        raise UnsupportedError(f"{ctx.where(node)}: both inputs are constants")
    like = acts[0] if len(acts) == 1 or acts[0].rank == acts[1].rank else ctx.b.to_layout(acts[0],
                                                                                         identity(acts[0].rank))
    tensors = []
    for i, v in enumerate(vals):
        if isinstance(v, Act):
            tensors.append(ctx.b.to_layout(v, like.perm if v.rank == like.rank else identity(v.rank)).tensor)
        else:
            data = integers(ctx, node, i, "constant operand", -2**31, 2**31 - 1)
            tensors.append(ctx.b.const(f"{node.output[0]}_const", storage_of(data, like.rank, like.perm),
                                       DType.INT32, ACC))
    arith = {"Add": "add", "Sub": "sub", "Mul": "mul"}[node.op_type]
    out = ctx.b.node("add_s32", tensors, node.output[0], DType.INT32, ACC, {"arith": arith})
    return [Act(out, like.perm if len(out.shape) == like.rank else identity(len(out.shape)))]


def average_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """A window sum (conv2d_s32 with weights 1); RequantShift divides by the window size exactly."""
    x, name = activation(ctx, node, 0), node.output[0]
    x = ctx.b.to_layout(x, NHWC)
    c = x.tensor.shape[3]
    if node.op_type == "GlobalAveragePool":
        kernel, attrs = (x.tensor.shape[1], x.tensor.shape[2]), {}
    else:
        kernel = tuple(attrs["kernel_shape"])
        win = window(attrs, (x.tensor.shape[1], x.tensor.shape[2]), kernel, name)
        if win.pads != (0, 0, 0, 0) and not attrs.get("count_include_pad", 0):
            raise UnsupportedError(f"{ctx.where(node)}: integer AveragePool with padding that is not counted "
                                   "(count_include_pad=0) divides border windows differently; not supported")
    window_attrs = {k: v for k, v in attrs.items() if k in ("strides", "pads", "auto_pad", "ceil_mode")}
    ones = np.ones((c, 1, *kernel), np.int64)
    y = _conv_s32(ctx, x, ones, None, {**window_attrs, "group": c}, name)
    return [Act(y.tensor, y.perm, kernel[0] * kernel[1])]


def _per_channel(data: np.ndarray, x: Act) -> np.ndarray:
    """mul / add broadcast against x, in x's storage order: one value, one per last axis, or one each."""
    full = np.broadcast_to(storage_of(data, x.rank, x.perm), x.tensor.shape)
    flat = full.reshape(-1, x.tensor.shape[-1] if x.rank else 1)
    if (full == full.reshape(-1)[0]).all():
        return full.reshape(-1)[:1]
    if (flat == flat[:1]).all():
        return flat[0]
    return full.reshape(-1)


def _channel_first(a: np.ndarray, x: Act) -> np.ndarray:
    """mul / add as Deeploy reads them when they do not broadcast against x: one value per channel (axis 1)."""
    try:
        if np.broadcast_shapes(a.shape, x.onnx_shape) == x.onnx_shape:
            return a
    except ValueError:
        pass
    if x.rank >= 2 and a.size == x.onnx_shape[1]:
        return a.reshape((1, -1) + (1,) * (x.rank - 2))
    return a


def requant_shift(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    where = ctx.where(node)
    x = activation(ctx, node, 0, int8=False)
    if len(node.input) >= 3:
        mul = integers(ctx, node, 1, "mul", -2**31, 2**31 - 1)
        add_ = integers(ctx, node, 2, "add", -2**62, 2**62)
    elif "mul" in attrs and "add" in attrs:  # old exports: mul and add as attributes
        mul, add_ = np.asarray(attrs["mul"], np.int64), np.asarray(attrs["add"], np.int64)
    else:
        raise UnsupportedError(f"{where}: mul and add are missing (neither inputs nor attributes)")
    mul, add_ = (_channel_first(a, x) for a in (mul, add_))
    for what, a in (("mul", mul), ("add", add_)):
        try:
            fits = np.broadcast_shapes(storage_of(a, x.rank, x.perm).shape, x.tensor.shape) == x.tensor.shape
        except ValueError:
            fits = False
        if not fits:
            raise UnsupportedError(f"{where}: {what} of shape {list(a.shape)} does not broadcast against the input "
                                   f"{list(x.onnx_shape)}")
    div = attr_float(ctx, node, attrs, "div", 1.0)
    if div != int(div) or div < 1:
        raise UnsupportedError(f"{where}: div must be a positive integer, got {div:g}")
    out_type = output_type(ctx, node, attrs)
    n_levels, signed = out_type.n_levels, out_type.signed
    scaled_add = add_ * x.divisor  # an AveragePool's sum: (sum * mul + add * N) / (div * N)
    mul_c, add_c = _per_channel(mul, x), _per_channel(scaled_add, x)
    if 1 not in (mul_c.size, add_c.size) and mul_c.size != add_c.size:  # one per channel, one per element
        mul_c, add_c = (np.broadcast_to(storage_of(a, x.rank, x.perm), x.tensor.shape).reshape(-1)
                        for a in (mul, scaled_add))
    if np.abs(add_c).max(initial=0) >= 2**31:
        raise UnsupportedError(f"{where}: add does not fit int32")
    size = max(mul_c.size, add_c.size)
    b = ctx.b
    mt = b.const(f"{node.output[0]}_mul", np.broadcast_to(mul_c, (size,)), DType.INT32)
    at = b.const(f"{node.output[0]}_add", np.broadcast_to(add_c, (size,)), DType.INT32)
    out_q = Quant((1.0,), (0 if signed else -128,))
    out = b.node("requant_shift", [x.tensor, mt, at], node.output[0], DType.INT8, out_q,
                 {"divisor": int(div) * x.divisor, "n_levels": n_levels, "signed": signed})
    return [Act(out, x.perm)]


def max_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    activation(ctx, node, 0)  # int8 only: a message for int32 inputs
    return movement.max_pool(ctx, node, attrs)


def _constant_only(op: str) -> Any:
    def handler(ctx: Context, node: Any, attrs: dict) -> list[Value]:
        raise UnsupportedError(f"{ctx.where(node)}: {op} on run-time values is not part of the integer dialect")
    return handler


_WINDOW = qdq.WINDOW
HANDLERS: dict[tuple[str, str], tuple[qdq.Handler, set[str]]] = {
    ("", "Conv"): (conv, _WINDOW | {"group"}),
    ("", "Gemm"): (gemm, {"alpha", "beta", "transA", "transB"}),
    ("", "MatMul"): (matmul, set()),
    ("", "MatMulInteger"): (matmul, set()),
    ("", "Add"): (add, set()),
    ("", "Sub"): (add, set()),
    ("", "Mul"): (add, set()),
    ("", "AveragePool"): (average_pool, _WINDOW | {"count_include_pad"}),
    ("", "GlobalAveragePool"): (average_pool, set()),
    ("", "MaxPool"): (max_pool, _WINDOW | {"storage_order"}),
    ("", "RequantShift"): (requant_shift, {"div", "n_levels_out", "n_levels", "signed", "mul", "add"}),
    ("", "Cast"): (_constant_only("Cast"), {"to"}),
}
