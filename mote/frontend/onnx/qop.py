"""QOperator ONNX: QLinear* ops (int8 / uint8 tensors with explicit scales and zero points), and
ConvInteger / MatMulInteger followed by their float rescaling.

A QLinear op's input scale and zero point describe the integer tensor it reads; mote tensors carry
their quantization, so a disagreeing consumer reads a relabelled (free, in-place) view.
ConvInteger / MatMulInteger produce int32 accumulators; the usual float tail
    Cast(float) -> Mul(scale) [-> Add(bias)] -> QuantizeLinear
folds into one mote convolution or fully connected layer (the scale becomes the accumulator's scale).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import lower, lower_pool, qdq
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import Act, Const, Deq, Pending, QConst, Value, int8_quant, to_int8
from mote.ir import DType, Quant


def output_quant(ctx: Context, node: Any, i: int) -> tuple[Quant, np.dtype]:
    """A QLinear op's output quantization, from its inputs i (scale) and i + 1 (zero point)."""
    return _quant(ctx, node, i, "output")


def input_act(ctx: Context, node: Any, i: int) -> Act:
    """A QLinear op's int8/uint8 input i, read with the scale and zero point of inputs i + 1, i + 2."""
    return _act(ctx, node, i)


def _quant(ctx: Context, node: Any, i: int, what: str) -> tuple[Quant, np.dtype]:
    scale = ctx.const(node, i, f"{what} scale")
    if ctx.value(node, i + 1) is None:  # ONNX's default, 0 of the activation's type: int8 and uint8 differ
        raise UnsupportedError(f"{ctx.where(node)}: the {what} zero point (input {i + 1}) is missing; mote needs "
                               "it explicitly")
    zp = ctx.const(node, i + 1, f"{what} zero point")
    return int8_quant(scale, zp, zp.dtype, None, ctx.where(node)), zp.dtype


def _act(ctx: Context, node: Any, i: int, what: str = "input") -> Act:
    """Input i, an int8/uint8 activation, read with the scale / zero point of inputs i+1, i+2."""
    v = ctx.value(node, i)
    if isinstance(v, Deq):
        v = v.act
    if not isinstance(v, Act) or v.tensor.dtype is not DType.INT8:
        raise UnsupportedError(f"{ctx.where(node)}: the {what} must be an int8 or uint8 activation")
    quant, _ = _quant(ctx, node, i + 1, what)
    return _read_as(ctx, v, quant)


def _read_as(ctx: Context, v: Act, quant: Quant) -> Act:
    if v.tensor.quant is None:  # a graph input: its quantization is what its first reader says
        v.tensor.quant = quant
        return v
    return ctx.b.retag(v, quant)


def _weights(ctx: Context, node: Any, i: int, channel_axis: int) -> QConst:
    data = ctx.const(node, i, "weights")
    scale = ctx.const(node, i + 1, "weights scale").astype(np.float32).reshape(-1)
    zp = ctx.const(node, i + 2, "weights zero point", default=np.zeros((), data.dtype))
    if data.dtype not in (np.int8, np.uint8):
        raise UnsupportedError(f"{ctx.where(node)}: weights must be int8 or uint8, got {data.dtype.name}")
    zero = to_int8(zp).reshape(-1)
    if zero.size not in (1, scale.size) or scale.size == 0:
        raise UnsupportedError(f"{ctx.where(node)}: the weights have {scale.size} scales and {zero.size} zero points")
    return QConst(to_int8(data), scale, np.broadcast_to(zero, scale.shape).copy(), channel_axis, 8)


def _operand(ctx: Context, node: Any, i: int) -> Act | QConst:
    v = ctx.value(node, i)
    if isinstance(v, Const):
        scale = ctx.const(node, i + 1, "scale").astype(np.float32).reshape(-1)
        zp = ctx.const(node, i + 2, "zero point", default=np.zeros((), v.data.dtype))
        return QConst(to_int8(v.data), scale, to_int8(zp).reshape(-1), None, 8)
    return _act(ctx, node, i)


def qlinear_conv(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, w = _act(ctx, node, 0), _weights(ctx, node, 3, 0)
    out_q, _ = _quant(ctx, node, 6, "output")
    bias = None
    if len(node.input) > 8 and node.input[8]:
        b = ctx.const(node, 8, "bias")
        bias = QConst(b.astype(np.int64), np.float32(x.quant.scale[0]) * w.scale, np.zeros(1, np.int64), 0, 32)
    return [qdq.conv_nd(ctx, x, w, bias, attrs, out_q, "NONE", node.output[0])]


def qlinear_matmul(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x, w = _act(ctx, node, 0), _weights(ctx, node, 3, 1)
    out_q, _ = _quant(ctx, node, 6, "output")
    if w.q.ndim != 2:
        raise UnsupportedError(f"{ctx.where(node)}: QLinearMatMul needs 2-D constant weights")
    return [lower.fully_connected(ctx.b, x, qdq.transposed(w), None, out_q, "NONE", node.output[0], True)]


def qgemm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """com.microsoft QGemm: A [M, K] times constant B, int32 bias C on scale a * b; quantized output."""
    if attrs.get("transA", 0) or len(node.input) < 8 or not node.input[7]:
        raise UnsupportedError(f"{ctx.where(node)}: QGemm needs transA=0 and a quantized output (y_scale)")
    x = _act(ctx, node, 0)
    w = _weights(ctx, node, 3, 0 if attrs.get("transB", 0) else 1)
    w = w if attrs.get("transB", 0) else qdq.transposed(w)
    alpha = float(attrs.get("alpha", 1.0))
    if alpha != 1.0:
        w = replace(w, scale=(w.scale * np.float32(alpha)).astype(np.float32))
    out_q, _ = _quant(ctx, node, 7, "output")
    bias = None
    if node.input[6]:
        b = ctx.const(node, 6, "bias")
        bias = QConst(b.astype(np.int64).reshape(-1), np.float32(x.quant.scale[0]) * w.scale, np.zeros(1, np.int64),
                      0, 32)
    return [lower.fully_connected(ctx.b, x, w, bias, out_q, "NONE", node.output[0], False)]


def qlinear_binary(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    a, c = _operand(ctx, node, 0), _operand(ctx, node, 3)
    out_q, _ = _quant(ctx, node, 6, "output")
    op = {"QLinearAdd": "add", "QLinearMul": "mul"}[node.op_type]
    return [lower.binary(ctx.b, op, a, c, out_q, "NONE", node.output[0])]


def _channels_first(x: Act, attrs: dict) -> Act:
    """com.microsoft pooling ops may say their input is NHWC already: view it as NCHW."""
    return lower.transpose(x, [0, 3, 1, 2]) if attrs.get("channels_last", 0) else x


def _channels_back(y: Act, attrs: dict) -> Act:
    return lower.transpose(y, [0, 2, 3, 1]) if attrs.get("channels_last", 0) else y


def qlinear_average_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = _channels_first(_act(ctx, node, 0), attrs)
    out_q, _ = _quant(ctx, node, 3, "output")
    window = {k: v for k, v in attrs.items() if k != "channels_last"}
    return [_channels_back(lower_pool.avg_pool(ctx.b, x, window, out_q, "NONE", node.output[0]), attrs)]


def qlinear_global_average_pool(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = _channels_first(_act(ctx, node, 0), attrs)
    out_q, _ = _quant(ctx, node, 3, "output")
    return [_channels_back(lower_pool.global_avg_pool(ctx.b, x, out_q, node.output[0]), attrs)]


def qlinear_sigmoid(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = _act(ctx, node, 0)
    out_q, _ = _quant(ctx, node, 3, "output")
    return [lower.sigmoid(ctx.b, x, out_q, node.output[0])]


def qlinear_softmax(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    x = _act(ctx, node, 0)
    out_q, _ = _quant(ctx, node, 3, "output")
    legacy = int(attrs.get("opset", 13)) < 13
    axis = int(attrs.get("axis", 1 if legacy else -1))
    return [lower.softmax(ctx.b, x, axis, legacy, out_q, node.output[0])]


def qlinear_concat(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    out_q, _ = _quant(ctx, node, 0, "output")
    xs = [_operand(ctx, node, i) for i in range(2, len(node.input), 3)]
    return [lower.concat(ctx.b, xs, int(attrs["axis"]), out_q, node.output[0])]


# -- ConvInteger / MatMulInteger --------------------------------------------------------------------------------------

@dataclass(eq=False)
class Accumulator(Pending):
    """int32 accumulators of ConvInteger / MatMulInteger, on the real scale `scale` once a Mul gives it."""

    x: Act | None = None
    w: QConst | None = None
    attrs: dict | None = None
    scale: np.ndarray | None = None  # float per output channel (or one value)
    bias: np.ndarray | None = None  # real bias, per output channel
    is_float: bool = False  # after the Cast to float


def _zero_point(ctx: Context, node: Any, i: int, like: np.ndarray) -> np.ndarray:
    zp = ctx.const(node, i, "zero point", default=np.zeros((), like.dtype))
    return to_int8(zp).reshape(-1)


def integer_op(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    v = ctx.value(node, 0)
    x = v.act if isinstance(v, Deq) else v
    where = ctx.where(node)
    if not isinstance(x, Act) or x.tensor.dtype is not DType.INT8 or x.tensor.quant is None:
        raise UnsupportedError(f"{where}: the input must be a statically quantized int8/uint8 activation "
                               "(DynamicQuantizeLinear computes scales at run time, which mote cannot; quantize "
                               "the model statically with `mote quantize`)")
    xzp = _zero_point(ctx, node, 2, np.zeros((), np.uint8))
    if int(xzp[0]) != x.quant.zero_point[0]:
        x = ctx.b.retag(x, Quant(x.quant.scale, (int(xzp[0]),)))
    w = ctx.const(node, 1, "weights")
    wzp = _zero_point(ctx, node, 3, w)
    channel_axis = 0 if node.op_type == "ConvInteger" else 1
    channels = w.shape[channel_axis]
    wq = QConst(to_int8(w), np.ones(channels, np.float32), np.broadcast_to(wzp, (channels,)).copy(),
                channel_axis, 8)
    if node.op_type == "MatMulInteger" and w.ndim != 2:
        raise UnsupportedError(f"{where}: MatMulInteger needs 2-D constant weights")
    return [Accumulator(node.op_type, node.output[0], _unscaled(where), x=x, w=wq, attrs=attrs)]


def _unscaled(where: str) -> Any:
    def fail(q: Quant, lo: float, hi: float) -> Act:
        raise UnsupportedError(f"{where}: int32 accumulators quantized without a float scale (expected "
                               "Cast -> Mul(scale) -> QuantizeLinear after ConvInteger / MatMulInteger)")
    return fail


def _build(ctx: Context, acc: Accumulator, where: str) -> Any:
    def run(q: Quant, lo: float, hi: float) -> Act:
        assert acc.x is not None and acc.w is not None and acc.scale is not None
        channels = acc.w.scale.size
        scale = np.broadcast_to(acc.scale.astype(np.float64).reshape(-1), (channels,))
        w_scale = (scale / np.float64(np.float32(acc.x.quant.scale[0]))).astype(np.float32)
        if channels > 1 and np.ptp(w_scale):
            w = replace(acc.w, scale=w_scale)
        elif np.ptp(acc.w.zero_point):
            raise UnsupportedError(f"{where}: per-channel weight zero points with a per-tensor scale")
        else:
            w = replace(acc.w, scale=w_scale[:1], zero_point=acc.w.zero_point[:1], axis=None)
        bias = None if acc.bias is None else Const(np.broadcast_to(acc.bias.reshape(-1), (channels,)))
        act = lower.fused_activation(lo, hi, q, where)
        if acc.op == "ConvInteger":
            return qdq.conv_nd(ctx, acc.x, w, bias, acc.attrs or {}, q, act, acc.name)
        return lower.fully_connected(ctx.b, acc.x, qdq.transposed(w), bias, q, act, acc.name, True)
    return run


def accumulator_tail(ctx: Context, node: Any, attrs: dict) -> list[Value] | None:
    """Cast / Mul / Add applied to an Accumulator, or None when the node is not such a tail."""
    acc = ctx.value(node, 0)
    other = ctx.value(node, 1) if len(node.input) > 1 else None
    if not isinstance(acc, Accumulator) and node.op_type in ("Mul", "Add") and isinstance(other, Accumulator):
        acc, other = other, acc
    if not isinstance(acc, Accumulator):
        return None
    where = ctx.where(node)
    if node.op_type == "Cast":
        return [replace(acc, is_float=True)]
    if not isinstance(other, Const):
        raise UnsupportedError(f"{where}: after {acc.op}, only Cast, Mul and Add by constants are supported")
    channels = acc.w.scale.size if acc.w is not None else 1
    data = _per_channel(other.data.astype(np.float64), channels, acc.op, where)
    if node.op_type == "Mul":
        scale = data if acc.scale is None else acc.scale * data
        bias = None if acc.bias is None else acc.bias * data
        new = replace(acc, scale=scale, bias=bias)
    else:
        if acc.scale is None:
            raise UnsupportedError(f"{where}: an Add before the accumulator's rescaling Mul is not supported")
        new = replace(acc, bias=data if acc.bias is None else acc.bias + data)
    return [replace(new, build=_build(ctx, new, where))]


def _per_channel(data: np.ndarray, channels: int, op: str, where: str) -> np.ndarray:
    """A constant that varies at most along the output channel axis, as [channels] (or [1])."""
    flat = data.reshape(-1)
    if flat.size == 1:
        return flat
    squeezed = data.squeeze()
    if squeezed.ndim == 1 and squeezed.size == channels:
        return squeezed
    raise UnsupportedError(f"{where}: a constant of shape {list(data.shape)} after {op} must be a scalar or "
                           f"one value per output channel")


def tail_or(fallback: qdq.Handler) -> qdq.Handler:
    def handler(ctx: Context, node: Any, attrs: dict) -> list:
        tail = accumulator_tail(ctx, node, attrs)
        return tail if tail is not None else fallback(ctx, node, attrs)
    return handler


def cast(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    tail = accumulator_tail(ctx, node, attrs)
    if tail is None:
        raise UnsupportedError(f"{ctx.where(node)}: Cast is supported only after ConvInteger / MatMulInteger")
    return tail


_WINDOW = qdq.WINDOW
HANDLERS: dict[tuple[str, str], tuple[qdq.Handler, set[str]]] = {
    ("", "QLinearConv"): (qlinear_conv, _WINDOW | {"group"}),
    ("", "QLinearMatMul"): (qlinear_matmul, set()),
    ("", "ConvInteger"): (integer_op, _WINDOW | {"group"}),
    ("", "MatMulInteger"): (integer_op, set()),
    ("", "Cast"): (cast, {"to", "saturate", "round_mode"}),
    ("", "Mul"): (tail_or(qdq.binary), set()),
    ("", "Add"): (tail_or(qdq.binary), set()),
    ("com.microsoft", "QGemm"): (qgemm, {"alpha", "transA", "transB"}),
    ("com.microsoft", "QLinearAdd"): (qlinear_binary, set()),
    ("com.microsoft", "QLinearMul"): (qlinear_binary, set()),
    ("com.microsoft", "QLinearAveragePool"): (qlinear_average_pool, _WINDOW | {"count_include_pad", "channels_last"}),
    ("com.microsoft", "QLinearGlobalAveragePool"): (qlinear_global_average_pool, {"channels_last"}),
    ("com.microsoft", "QLinearSigmoid"): (qlinear_sigmoid, set()),
    ("com.microsoft", "QLinearSoftmax"): (qlinear_softmax, {"axis", "opset"}),
    ("com.microsoft", "QLinearConcat"): (qlinear_concat, {"axis"}),
}
