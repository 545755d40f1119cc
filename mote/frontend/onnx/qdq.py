"""QDQ ONNX: QuantizeLinear / DequantizeLinear around float ops.

A float op whose inputs are DequantizeLinear outputs becomes a Pending value; the QuantizeLinear
that follows it supplies the output quantization and the mote nodes are built then (a Relu or Clip
in between becomes a fused activation).
The data-movement ops are in movement.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import lower, lower_pool
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import (
    Act,
    Builder,
    Const,
    Deq,
    Pending,
    QConst,
    Value,
    as_2d,
    from_2d,
    identity,
    int8_quant,
    same_quant,
    to_int8,
)
from mote.frontend.onnx.window import attrs_2d
from mote.ir import DType, Quant, Tensor

Handler = Callable[[Context, Any, dict], list]
WINDOW = {"auto_pad", "pads", "strides", "kernel_shape", "dilations", "ceil_mode"}


def _require_no_clamp(lo: float, hi: float, q: Quant, where: str) -> None:
    if lower.fused_activation(lo, hi, q, where) != "NONE":
        raise UnsupportedError(f"{where}: a Relu/Clip after this op narrows its output range; mote cannot fuse it")


def act_input(ctx: Context, node: Any, i: int) -> Act:
    """An activation input of a float op in a QDQ graph: must be a DequantizeLinear output."""
    v = ctx.value(node, i)
    if isinstance(v, Deq):
        return v.act
    where, name = ctx.where(node), node.input[i] if i < len(node.input) else "?"
    if isinstance(v, Pending):
        raise UnsupportedError(f"{where}: input {name!r} is the unquantized output of {v.op} node {v.name!r}; mote "
                               "needs QuantizeLinear/DequantizeLinear between quantized ops")
    if isinstance(v, Act) and v.tensor.dtype is DType.FLOAT32:
        raise UnsupportedError(f"{where}: input {name!r} is a float tensor (no QuantizeLinear before it); the model "
                               "is not fully quantized: quantize it with `mote quantize`")
    raise UnsupportedError(f"{where}: input {name!r} must be a dequantized activation")


def qconst_input(ctx: Context, node: Any, i: int, what: str) -> QConst:
    v = ctx.value(node, i)
    if isinstance(v, QConst):
        return v
    if isinstance(v, Deq):
        raise UnsupportedError(f"{ctx.where(node)}: the {what} is computed at run time; mote needs constant "
                               "weights (a product of two activations is not supported)")
    raise UnsupportedError(f"{ctx.where(node)}: the {what} must be a quantized constant (DequantizeLinear of "
                           "an integer initializer)")


def operand_input(ctx: Context, node: Any, i: int) -> Act | QConst:
    v = ctx.value(node, i)
    return v if isinstance(v, QConst) else act_input(ctx, node, i)


def bias_input(ctx: Context, node: Any, i: int) -> QConst | Const | None:
    v = ctx.value(node, i)
    if v is None or isinstance(v, (QConst, Const)):
        return v
    raise UnsupportedError(f"{ctx.where(node)}: the bias must be a constant")


def pending(ctx: Context, node: Any, build: Callable[[Quant, float, float, str], Act],
             clampable: bool = True) -> list[Value]:
    where, name = ctx.where(node), node.output[0]

    def run(q: Quant, lo: float, hi: float) -> Act:
        if not clampable:
            _require_no_clamp(lo, hi, q, where)
        return build(q, lo, hi, lower.fused_activation(lo, hi, q, where) if clampable else "NONE")

    return [Pending(node.op_type, name, run, clampable=clampable)]


# -- QuantizeLinear / DequantizeLinear ------------------------------------------------------------------------------

def _qparams(ctx: Context, node: Any, attrs: dict) -> tuple[np.ndarray, np.ndarray, np.dtype, int]:
    if attrs.get("block_size", 0):
        raise UnsupportedError(f"{ctx.where(node)}: blocked quantization (block_size) is not supported")
    scale = ctx.const(node, 1, "scale").astype(np.float32)
    x = ctx.value(node, 0)
    # Without a zero point: 0 of the output type (QuantizeLinear: uint8) or of the input's (DequantizeLinear).
    like = x.data.dtype if isinstance(x, Const) and node.op_type == "DequantizeLinear" else np.uint8
    if isinstance(x, Act) and node.op_type == "DequantizeLinear":
        like = np.int8  # mote's int8: the zero point then is the tensor's own, below
    zp = ctx.const(node, 2, "zero point", default=np.zeros((), like))
    if node.op_type == "QuantizeLinear" and len(node.input) < 3 and attrs.get("output_dtype"):
        from onnx import helper

        zp = np.zeros((), helper.tensor_dtype_to_np_dtype(attrs["output_dtype"]))
    return scale, zp, zp.dtype, int(attrs.get("axis", 1))


def quantize_linear(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    v = ctx.value(node, 0)
    scale, zp, dtype, axis = _qparams(ctx, node, attrs)
    where, name = ctx.where(node), node.output[0]
    if isinstance(v, Const):
        return [Const(_quantize_const(v.data, scale, zp, axis))]
    quant = int8_quant(scale, zp, dtype, None, where)
    if quant.per_channel:
        raise UnsupportedError(f"{where}: per-channel quantization of an activation is not supported")
    if isinstance(v, Pending):
        return [v.build(quant, v.lo, v.hi)]
    if isinstance(v, Deq):
        return [lower.requantize(ctx.b, v.act, quant, name)]
    if isinstance(v, Act) and v.tensor.dtype is DType.FLOAT32:
        return [lower.quantize(ctx.b, v, quant, name)]
    raise UnsupportedError(f"{where}: QuantizeLinear of an integer tensor is not supported")


def _quantize_const(data: np.ndarray, scale: np.ndarray, zp: np.ndarray, axis: int) -> np.ndarray:
    """ONNX QuantizeLinear on a constant: round half to even, saturate."""
    shape = [1] * data.ndim
    if scale.size > 1:
        shape[axis % data.ndim] = -1
    q = np.rint(data / scale.reshape(shape)) + zp.astype(np.int64).reshape(shape if zp.size > 1 else ())
    info = np.iinfo(zp.dtype)
    return np.clip(q, info.min, info.max).astype(zp.dtype)


def dequantize_linear(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    v = ctx.value(node, 0)
    scale, zp, dtype, axis = _qparams(ctx, node, attrs)
    where = ctx.where(node)
    if isinstance(v, Const):
        data = v.data
        _check_const_quantization(data, scale, zp, axis, where)
        if data.dtype in (np.int8, np.uint8):
            return [QConst(to_int8(data), scale.reshape(-1), to_int8(zp).reshape(-1), axis % max(data.ndim, 1), 8)]
        if data.dtype.name in SUBBYTE:
            return [subbyte_const(data, scale, zp, axis, where)]
        if data.dtype == np.int32:
            if zp.any():
                raise UnsupportedError(f"{where}: int32 constants (biases) need zero point 0, got "
                                       f"{zp.reshape(-1)[:4].tolist()}")
            return [QConst(data.astype(np.int64), scale.reshape(-1), zp.astype(np.int64).reshape(-1),
                           axis % max(data.ndim, 1), 32)]
        raise UnsupportedError(f"{where}: dequantizing a {data.dtype.name} constant is not supported")
    if isinstance(v, Act) and v.tensor.dtype is DType.INT8:
        if len(node.input) < 3 or not node.input[2]:
            # ONNX's default zero point is 0 of the tensor's type, which an int8 Act no longer records
            # (uint8 is stored shifted): unambiguous only where the tensor's own zero point is 0.
            if v.quant.zero_point[0] != 0:
                raise UnsupportedError(f"{where}: no zero point given for {node.input[0]!r}; mote needs it "
                                       "explicitly here (0 of int8 and of uint8 differ)")
            zp = np.asarray(0, np.int8)
        quant = int8_quant(scale, zp, dtype, None, where)
        if quant.per_channel:
            raise UnsupportedError(f"{where}: per-channel quantization of an activation is not supported")
        return [Deq(ctx.b.retag(v, quant))]
    raise UnsupportedError(f"{where}: DequantizeLinear needs an int8/uint8 tensor or constant")


# ONNX's sub-byte integer types (opset 21; numpy dtypes from ml_dtypes): (bits, unsigned)
SUBBYTE = {"int4": (4, False), "uint4": (4, True), "int2": (2, False), "uint2": (2, True)}


def subbyte_const(data: np.ndarray, scale: np.ndarray, zp: np.ndarray, axis: int, where: str) -> QConst:
    """An INT4/UINT4/INT2/UINT2 initializer: its values as int64 of `bits` signed bits; unsigned ones shifted by
    -2^(bits-1), their zero points too (as uint8 ones are shifted by -128), which keeps every real value exact."""
    bits, unsigned = SUBBYTE[data.dtype.name]
    if zp.dtype != data.dtype and zp.size and zp.any():
        raise UnsupportedError(f"{where}: the zero point is {zp.dtype.name}, the constant {data.dtype.name}; ONNX "
                               "needs them of one type")
    shift = (1 << (bits - 1)) if unsigned else 0
    q = np.asarray(data).astype(np.int64) - shift
    zero = np.asarray(zp).astype(np.int64).reshape(-1) - shift
    return QConst(q, scale.reshape(-1), zero, axis % max(data.ndim, 1), bits)


def _check_const_quantization(data: np.ndarray, scale: np.ndarray, zp: np.ndarray, axis: int, where: str) -> None:
    """Scales finite and > 0; one scale, or one per slice along an axis inside the tensor's rank; zero points
    matching the scales."""
    if scale.size > 1 and not -data.ndim <= axis < data.ndim:
        raise UnsupportedError(f"{where}: per-channel axis {axis} is outside the {data.ndim}-D constant")
    if scale.size == 0 or (scale.size > 1 and scale.size != data.shape[axis]):
        raise UnsupportedError(f"{where}: {scale.size} scales for a constant of shape {list(data.shape)} "
                               f"(axis {axis})")
    if zp.size not in (1, scale.size):
        raise UnsupportedError(f"{where}: {zp.size} zero points for {scale.size} scales")
    if not (np.isfinite(scale) & (scale > 0)).all():
        raise UnsupportedError(f"{where}: quantization scales must be finite and positive, got "
                               f"{scale.reshape(-1)[:4].tolist()}")


# -- float compute ops (pending until their QuantizeLinear) -----------------------------------------------------------

def conv(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, w, bias = act_input(ctx, node, 0), qconst_input(ctx, node, 1, "weights"), bias_input(ctx, node, 2)
    name = node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: conv_nd(ctx, x, w, bias, attrs, q, act, name))


def conv_nd(ctx: Context, x: Act, w: QConst, bias: Any, attrs: dict, q: Quant, act: str, name: str) -> Act:
    """2-D convolution; a 1-D one runs as 2-D with height 1."""
    if x.rank == 4:
        return lower.conv(ctx.b, x, w, bias, attrs, q, act, name)
    if x.rank != 3:
        raise UnsupportedError(f"{name}: {x.rank - 2}-D convolution is not supported")
    w2 = replace(w, q=w.q[:, :, None, :])
    return from_2d(ctx.b, lower.conv(ctx.b, as_2d(ctx.b, x, name), w2, bias, attrs_2d(attrs), q, act, name))


def transposed(w: QConst) -> QConst:
    axis = None if w.axis is None else 1 - w.axis
    return QConst(w.q.T, w.scale, w.zero_point, axis, w.bits)


def gemm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, w, bias = act_input(ctx, node, 0), qconst_input(ctx, node, 1, "weights"), bias_input(ctx, node, 2)
    if attrs.get("transA", 0):
        raise UnsupportedError(f"{ctx.where(node)}: Gemm with transA=1 is not supported")
    if x.rank != 2:
        raise UnsupportedError(f"{ctx.where(node)}: Gemm input must be 2-D")
    w = w if attrs.get("transB", 0) else transposed(w)
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    if alpha != 1.0:
        w = replace(w, scale=(w.scale * np.float32(alpha)).astype(np.float32))
    if bias is not None and beta != 1.0:
        bias = Const(bias.real() * beta if isinstance(bias, QConst) else bias.data * beta)
    name = node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower.fully_connected(ctx.b, x, w, bias, q, act, name, False))


def _matrix_layout(b: Builder, x: Act) -> tuple[Tensor, bool]:
    """An activation as BATCH_MATMUL's operand: its tensor and whether it is stored with its last two axes
    swapped (a Transpose of them before the MatMul, Q . K^T, moves no data: the kernel reads it transposed)."""
    lead = tuple(range(x.rank - 2))
    swapped = (*lead, x.rank - 1, x.rank - 2)
    if x.perm == swapped:
        return x.tensor, True
    return b.to_layout(x, identity(x.rank)).tensor, False


def batch_matmul(b: Builder, lhs: Act, rhs: Act, out_q: Quant, name: str) -> Act:
    """MatMul of two int8 activations (numpy's matmul: the batch axes broadcast): one BATCH_MATMUL."""
    for x in (lhs, rhs):
        if not 2 <= x.rank <= 5:
            raise UnsupportedError(f"{name}: a MatMul of two activations needs operands of rank 2 to 5, got "
                                   f"{list(x.onnx_shape)}")
    a, adj_x = _matrix_layout(b, lhs)
    c, adj_y = _matrix_layout(b, rhs)
    out = b.node("batch_matmul", [a, c], name, DType.INT8, out_q, {"adj_x": adj_x, "adj_y": adj_y})
    return Act(out, identity(len(out.shape)))


def matmul(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    if isinstance(ctx.value(node, 1), Deq):  # two activations (attention's Q . K^T and weights . V)
        a, c, name = act_input(ctx, node, 0), act_input(ctx, node, 1), node.output[0]
        return pending(ctx, node, lambda q, lo, hi, act: batch_matmul(ctx.b, a, c, q, name), clampable=False)
    x, w = act_input(ctx, node, 0), qconst_input(ctx, node, 1, "second input")
    if w.q.ndim != 2 or x.rank < 2:
        raise UnsupportedError(f"{ctx.where(node)}: MatMul needs an activation of rank >= 2 and 2-D weights")
    name = node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower.fully_connected(ctx.b, x, transposed(w), None, q, act,
                                                                             name, True))


def binary(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    a, c = operand_input(ctx, node, 0), operand_input(ctx, node, 1)
    op, name = node.op_type.lower(), node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower.binary(ctx.b, op, a, c, q, act, name))


def average_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = act_input(ctx, node, 0), node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower_pool.avg_pool(ctx.b, x, attrs, q, act, name))


def global_average_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = act_input(ctx, node, 0), node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower_pool.global_avg_pool(ctx.b, x, q, name), clampable=False)


def sigmoid(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = act_input(ctx, node, 0), node.output[0]
    return pending(ctx, node, lambda q, lo, hi, act: lower.sigmoid(ctx.b, x, q, name), clampable=False)


def softmax(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, name = act_input(ctx, node, 0), node.output[0]
    legacy = ctx.opsets.get("", 13) < 13
    axis = int(attrs.get("axis", 1 if legacy else -1))
    return pending(ctx, node, lambda q, lo, hi, act: lower.softmax(ctx.b, x, axis, legacy, q, name),
                    clampable=False)


def clip_bounds(ctx: Context, node: Any, attrs: dict) -> tuple[float, float]:
    if node.op_type == "Relu":
        return 0.0, np.inf
    if "min" in attrs or "max" in attrs:  # opset < 11
        return float(attrs.get("min", -np.inf)), float(attrs.get("max", np.inf))
    bounds = []
    for i, default in ((1, -np.inf), (2, np.inf)):
        v = ctx.value(node, i)
        bounds.append(default if v is None else float((v.real() if isinstance(v, QConst) else
                                                       np.asarray(v.data if isinstance(v, Const) else np.nan))
                                                      .reshape(-1)[0]))
        if np.isnan(bounds[-1]):
            raise UnsupportedError(f"{ctx.where(node)}: Clip bounds must be constants")
    return bounds[0], bounds[1]


def relu_clip(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    lo, hi = clip_bounds(ctx, node, attrs)
    v = ctx.value(node, 0)
    if isinstance(v, Pending) and v.clampable:
        return [Pending(v.op, v.name, v.build, max(v.lo, lo), min(v.hi, hi), True)]
    x, name = act_input(ctx, node, 0), node.output[0]
    return [Pending(node.op_type, name, lambda q, lo2, hi2: lower.clip(ctx.b, x, lo2, hi2, q, name), lo, hi)]


def concat(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    xs = [operand_input(ctx, node, i) for i in range(len(node.input))]
    axis, name = int(attrs["axis"]), node.output[0]
    acts = [x for x in xs if isinstance(x, Act)]
    if len(acts) == len(xs) and all(same_quant(a.quant, acts[0].quant) for a in acts):
        return [Deq(lower.concat(ctx.b, xs, axis, acts[0].quant, name))]
    return pending(ctx, node, lambda q, lo, hi, act: lower.concat(ctx.b, xs, axis, q, name), clampable=False)


HANDLERS: dict[str, tuple[Handler, set[str]]] = {
    "QuantizeLinear": (quantize_linear, {"axis", "saturate", "block_size", "output_dtype", "precision"}),
    "DequantizeLinear": (dequantize_linear, {"axis", "block_size", "output_dtype"}),
    "Conv": (conv, WINDOW | {"group"}),
    "Gemm": (gemm, {"alpha", "beta", "transA", "transB"}),
    "MatMul": (matmul, set()),
    "Add": (binary, set()),
    "Mul": (binary, set()),
    "AveragePool": (average_pool, WINDOW | {"count_include_pad"}),
    "GlobalAveragePool": (global_average_pool, set()),
    "Sigmoid": (sigmoid, set()),
    "Softmax": (softmax, {"axis"}),
    "Relu": (relu_clip, set()),
    "Clip": (relu_clip, {"min", "max"}),
    "Concat": (concat, {"axis"}),
}
