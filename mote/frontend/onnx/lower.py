"""Quantized ONNX ops -> mote nodes. Shared by the QDQ and QOperator readers (qdq.py).

Every function takes activations (Act, int8 with their quantization), quantized constants and the
output quantization, and returns the output Act. Geometry follows ONNX (explicit pads, auto_pad,
ceil_mode); where mote's TFLite-style SAME/VALID cannot express it, an explicit pad node comes first
(filled with the zero point, i.e. real 0, so convolution results are unchanged).
"""

from __future__ import annotations

import math

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx.check import MAX_ELEMENTS
from mote.frontend.onnx.values import (
    NHWC,
    Act,
    Builder,
    Const,
    QConst,
    identity,
    same_quant,
    storage_of,
)
from mote.frontend.onnx.window import Window, conv_group, tflite_padding, window
from mote.ir import DType, Quant, Tensor
from mote.ops.common import activation_range
from mote.quant import round_half_away

SOFTMAX_QUANT = Quant((1.0 / 256,), (-128,))  # what TFLite's int8 softmax and logistic produce


def check_rank(x: Act, name: str) -> None:
    if x.rank != 4:
        raise UnsupportedError(f"{name}: {x.rank - 2}-D windows are not supported (1-D and 2-D are)")


def padded_input(b: Builder, x: Act, win: Window, fill: int | None, name: str) -> tuple[Tensor, str]:
    """The NHWC input and the mote padding that realise `win`: explicit padding first if needed.

    `fill` is the stored value of the padding (the zero point: real 0); None means padding must not be
    materialized (average pooling that excludes it)."""
    in_hw = (x.tensor.shape[1], x.tensor.shape[2])
    mode = tflite_padding(win, in_hw)
    if mode is not None:
        return x.tensor, mode
    if fill is None:
        raise UnsupportedError(f"{name}: pads {list(win.pads)} differ from SAME and VALID and the padding is not "
                               "counted (count_include_pad=0); mote cannot express this average pool")
    t, left, bottom, right = win.pads
    return pad_tensor(b, x.tensor, [(0, 0), (t, bottom), (left, right), (0, 0)], fill, f"{name}_pad"), "VALID"


def pad_tensor(b: Builder, x: Tensor, widths: list[tuple[int, int]], fill: int, name: str) -> Tensor:
    """mote pad fills with its output's zero point: a tensor whose zero point is `fill`, read back as x's."""
    if x.dtype is not DType.INT8 or x.quant is None:
        raise UnsupportedError(f"{name}: mote pads int8 tensors only ({x.name!r} is {x.dtype.value})")
    if any(p < 0 for w in widths for p in w):
        raise UnsupportedError(f"{name}: negative pads {widths} (cropping) are not supported")
    padded = math.prod(d + lo + hi for d, (lo, hi) in zip(x.shape, widths))
    if padded > MAX_ELEMENTS:
        raise UnsupportedError(f"{name}: pads {widths} make {padded} elements, over mote's limit of {MAX_ELEMENTS}")
    if not -128 <= fill <= 127:
        raise UnsupportedError(f"{name}: the pad value is outside the int8 range of the tensor")
    pads = b.const(f"{name}_paddings", np.array(widths, dtype=np.int32), DType.INT32)
    q = x.quant
    fill_q = Quant(q.scale, (fill,) * len(q.zero_point), q.axis)
    out = b.node("pad", [x, pads], name, DType.INT8, fill_q)
    return b.reshape(out, out.shape, name, quant=q) if fill != x.zero_point else out


def fused_activation(lo: float, hi: float, out_q: Quant, what: str) -> str:
    """The mote fused activation whose clamp equals clipping to real [lo, hi] in `out_q`."""
    if lo == -np.inf and hi == np.inf:
        return "NONE"
    scale, zp = np.float32(out_q.scale[0]), out_q.zero_point[0]
    want = (-128 if lo == -np.inf else max(-128, zp + round_half_away(float(np.float32(lo) / scale))),
            127 if hi == np.inf else min(127, zp + round_half_away(float(np.float32(hi) / scale))))
    probe = Tensor("probe", (), DType.INT8, out_q)
    for act in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
        if activation_range(act, probe) == want:
            return act
    raise UnsupportedError(f"{what}: a clip to [{lo:g}, {hi:g}] narrower than the output quantization range is "
                           "not expressible as a mote fused activation (Relu, Relu6, Clip(-1, 1))")


def bias_int32(bias: QConst | Const | None, x_scale: float, w_scale: np.ndarray, channels: int,
               what: str) -> np.ndarray | None:
    """int32 bias on the accumulator's scale x_scale * w_scale[c]; rounded when stored on another scale."""
    if bias is None:
        return None
    expected = np.float64(np.float32(x_scale)) * np.broadcast_to(w_scale.astype(np.float64), (channels,))
    values = bias.q.size if isinstance(bias, QConst) else np.asarray(bias.data).size
    if values not in (1, channels) or (isinstance(bias, QConst) and bias.scale.size not in (1, values)):
        raise UnsupportedError(f"{what}: the bias has {values} values for {channels} output channels")
    if isinstance(bias, QConst):
        q = bias.q.reshape(-1)
        scale = np.broadcast_to(bias.scale.astype(np.float64).reshape(-1), q.shape)
        if bias.bits == 32 and not bias.zero_point.any() and np.allclose(scale, expected, rtol=1e-6, atol=0):
            return np.broadcast_to(q, (channels,)).astype(np.int32)
        real = bias.real().reshape(-1)
    else:
        real = np.asarray(bias.data, dtype=np.float64).reshape(-1)
    q = np.round(np.broadcast_to(real, (channels,)) / expected)
    if np.abs(q).max(initial=0) >= 2**31:
        raise UnsupportedError(f"{what}: the bias does not fit int32 on the accumulator's scale")
    return q.astype(np.int32)


def weight_quant(w: QConst, channel_axis: int, new_axis: int, channels: int, what: str) -> Quant:
    """Weights' mote Quant, per channel along `new_axis` of the transposed array."""
    if w.scale.size > 1:
        if w.axis is None or w.axis % w.q.ndim != channel_axis or w.scale.size != channels:
            raise UnsupportedError(f"{what}: weights are quantized per channel along axis {w.axis}; mote needs "
                                   f"per-output-channel ({channel_axis}) or per-tensor weights")
        return Quant(tuple(float(s) for s in w.scale), tuple(int(z) for z in w.zero_point), new_axis)
    return Quant((float(w.scale[0]),), (int(w.zero_point[0]),))


def int8_weights(w: QConst, what: str) -> np.ndarray:
    """The weights' values: 8-bit ones, or sub-byte ones (bits 4 or 2, which the weight tensor then declares:
    `weight_tensor`)."""
    if w.bits not in (8, 4, 2):
        raise UnsupportedError(f"{what}: weights must be 8-, 4- or 2-bit integers, got {w.bits}-bit")
    low, high = -(1 << (w.bits - 1)), (1 << (w.bits - 1)) - 1
    if w.q.min(initial=0) < low or w.q.max(initial=0) > high:
        raise UnsupportedError(f"{what}: weights must be {w.bits}-bit")
    return w.q


def weight_tensor(b: Builder, name: str, w: QConst, data: np.ndarray, quant: Quant) -> Tensor:
    """The int8 constant of a layer's weights, declaring their width when it is below 8 bits (Tensor.bits)."""
    t = b.const(name, data, DType.INT8, quant)
    t.bits = w.bits
    return t


def conv(b: Builder, x: Act, w: QConst, bias: QConst | Const | None, attrs: dict, out_q: Quant, activation: str,
         name: str) -> Act:
    """Conv (group 1: conv2d; group == channels: depthwise_conv2d; otherwise grouped conv2d)."""
    x = b.to_layout(x, NHWC)
    n, h, wd, c = x.tensor.shape
    q = int8_weights(w, name)
    if q.ndim != 4:
        raise UnsupportedError(f"{name}: {q.ndim - 2}-D convolution; mote supports 2-D (and 1-D) convolutions")
    oc, ic_g, kh, kw = q.shape
    group = conv_group(attrs, q.shape, c, name)
    if any(w.zero_point):
        raise UnsupportedError(f"{name}: convolution weights need zero point 0 (int8, int4, int2) or the middle of "
                               "their range (128 for uint8, 8 for uint4, 2 for uint2), got (shifted to signed) "
                               f"{sorted(set(w.zero_point.tolist()))[:4]}; quantize weights symmetrically")
    win = window(attrs, (h, wd), (kh, kw), name)
    xt, padding = padded_input(b, x, win, x.quant.zero_point[0], name)
    bias_q = bias_int32(bias, x.quant.scale[0], w.scale, oc, name)
    depthwise = group == c and ic_g == 1 and group > 1
    if depthwise:
        data, quant = q.transpose(1, 2, 3, 0), weight_quant(w, 0, 3, oc, name)
        op, extra = "depthwise_conv2d", {"depth_multiplier": oc // c}
    else:
        data, quant = q.transpose(0, 2, 3, 1), weight_quant(w, 0, 0, oc, name)
        op, extra = "conv2d", {}
    wt = weight_tensor(b, f"{name}_weights", w, data, quant)
    bt = None if bias_q is None else b.const(f"{name}_bias", bias_q, DType.INT32)
    attrs_m = {"stride": win.stride, "dilation": win.dilation, "padding": padding, "activation": activation, **extra}
    return Act(b.node(op, [xt, wt, bt], name, DType.INT8, out_q, attrs_m), NHWC)


def fully_connected(b: Builder, x: Act, w: QConst, bias: QConst | Const | None, out_q: Quant, activation: str,
                    name: str, keep_dims: bool) -> Act:
    """x [..., K] times weights w [N, K] (already transposed): Gemm and MatMul with constant B."""
    x = b.to_layout(x, identity(x.rank))
    q = int8_weights(w, name)
    if q.ndim != 2 or x.rank < 1:
        raise UnsupportedError(f"{name}: weights of shape {list(q.shape)} with input {list(x.onnx_shape)}; a matrix "
                               "product needs 2-D weights")
    out_depth, depth = q.shape
    if x.tensor.shape[-1] != depth:
        raise UnsupportedError(f"{name}: input {list(x.onnx_shape)} does not match weights of depth {depth}")
    quant = weight_quant(w, 0, 0, out_depth, name)
    if quant.per_channel and any(quant.zero_point):
        raise UnsupportedError(f"{name}: per-channel weights need zero point 0")
    bias_q = bias_int32(bias, x.quant.scale[0], w.scale, out_depth, name)
    wt = weight_tensor(b, f"{name}_weights", w, q, quant)
    bt = None if bias_q is None else b.const(f"{name}_bias", bias_q, DType.INT32)
    out = b.node("fully_connected", [x.tensor, wt, bt], name, DType.INT8, out_q,
                 {"activation": activation, "keep_num_dims": keep_dims})
    return Act(out, identity(len(out.shape)))


def operand(b: Builder, v: Act | QConst, like: Act, name: str) -> Tensor:
    """A binary op's input as a mote tensor laid out like `like`."""
    if isinstance(v, Act):
        return b.to_layout(v, like.perm).tensor
    if v.scale.size > 1 or v.bits != 8:
        raise UnsupportedError(f"{name}: a constant operand must be an 8-bit per-tensor quantized constant")
    quant = Quant((float(v.scale[0]),), (int(v.zero_point[0]),))
    return b.const(f"{name}_const", storage_of(v.q, like.rank, like.perm), DType.INT8, quant)


def binary(b: Builder, op: str, lhs: Act | QConst, rhs: Act | QConst, out_q: Quant, activation: str,
           name: str) -> Act:
    """add / mul with numpy broadcasting; a constant side becomes an int8 const tensor."""
    acts = [v for v in (lhs, rhs) if isinstance(v, Act)]
    if not acts:
        raise UnsupportedError(f"{name}: both inputs are constants")
    like = acts[0]
    if len(acts) == 2 and acts[0].rank != acts[1].rank:
        like = b.to_layout(like, identity(like.rank))
    if isinstance(rhs, Act) and rhs.rank > like.rank:
        like = b.to_layout(rhs, identity(rhs.rank))
    a, c = operand(b, lhs, like, name), operand(b, rhs, like, name)
    out = b.node(op, [a, c], name, DType.INT8, out_q, {"activation": activation})
    perm = like.perm if len(out.shape) == like.rank else identity(len(out.shape))
    return Act(out, perm)


def requantize(b: Builder, x: Act, quant: Quant, name: str) -> Act:
    """x with new quantization (a mote int8 -> int8 quantize) unless it already has it."""
    if same_quant(x.quant, quant):
        return x
    return Act(b.node("quantize", [x.tensor], name, DType.INT8, quant), x.perm)


def quantize(b: Builder, x: Act, quant: Quant, name: str) -> Act:
    """float32 -> int8 as ONNX's QuantizeLinear: halves round to even (onnxruntime's rounding)."""
    return Act(b.node("quantize", [x.tensor], name, DType.INT8, quant, {"round_half_even": True}), x.perm)


def dequantize(b: Builder, x: Act, name: str) -> Act:
    return Act(b.node("dequantize", [x.tensor], name, DType.FLOAT32, None), x.perm)


def softmax(b: Builder, x: Act, axis: int, legacy: bool, out_q: Quant, name: str) -> Act:
    """Softmax over one axis (opset >= 13) or over the flattened trailing axes (legacy opsets)."""
    axis %= x.rank
    if legacy and axis != x.rank - 1:
        shape = x.onnx_shape
        x = b.to_layout(x, identity(x.rank))
        rows = (math.prod(shape[:axis]), math.prod(shape[axis:]))
        flat = b.reshape(x.tensor, rows, f"{name}_2d")
        out = b.node("softmax", [flat], f"{name}_softmax", DType.INT8, SOFTMAX_QUANT, {"beta": 1.0})
        return requantize(b, Act(b.reshape(out, x.tensor.shape, f"{name}_nd"), x.perm), out_q, name)
    if x.perm[-1] != axis:
        x = b.to_layout(x, tuple(p for p in x.perm if p != axis) + (axis,))
    out = b.node("softmax", [x.tensor], f"{name}_softmax", DType.INT8, SOFTMAX_QUANT, {"beta": 1.0})
    return requantize(b, Act(out, x.perm), out_q, name)


def sigmoid(b: Builder, x: Act, out_q: Quant, name: str) -> Act:
    out = b.node("logistic", [x.tensor], f"{name}_logistic", DType.INT8, SOFTMAX_QUANT)
    return requantize(b, Act(out, x.perm), out_q, name)


def clip(b: Builder, x: Act, lo: float, hi: float, out_q: Quant, name: str) -> Act:
    """A standalone Relu or Clip between quantized tensors."""
    if fused_activation_or_none(lo, hi, out_q) == "NONE":
        return requantize(b, x, out_q, name)
    if lo == 0.0 and fused_activation_or_none(-np.inf, hi, out_q) == "NONE":
        return Act(b.node("relu", [x.tensor], name, DType.INT8, out_q), x.perm)
    if (lo, hi) == (0.0, 6.0) and same_quant(x.quant, out_q):
        return Act(b.node("relu6", [x.tensor], name, DType.INT8, out_q), x.perm)
    raise UnsupportedError(f"{name}: Clip to [{lo:g}, {hi:g}] between differently quantized tensors is not "
                           "supported")


def fused_activation_or_none(lo: float, hi: float, out_q: Quant) -> str | None:
    try:
        return fused_activation(lo, hi, out_q, "")
    except UnsupportedError:
        return None


def concat(b: Builder, xs: list[Act | QConst], axis: int, out_q: Quant, name: str) -> Act:
    """Concat: every input requantized to the output's quantization first (mote's concat copies bytes)."""
    acts = [v for v in xs if isinstance(v, Act)]
    if not acts:
        raise UnsupportedError(f"{name}: all inputs are constants")
    like = acts[0]
    axis %= like.rank
    tensors = []
    for i, v in enumerate(xs):
        if isinstance(v, Act):
            tensors.append(requantize(b, b.to_layout(v, like.perm), out_q, f"{name}_in{i}").tensor)
        else:
            real = v.real()
            q = np.clip(np.round(real / out_q.scale[0]) + out_q.zero_point[0], -128, 127)
            tensors.append(b.const(f"{name}_in{i}", storage_of(q, like.rank, like.perm), DType.INT8, out_q))
    out = b.node("concatenation", tensors, name, DType.INT8, out_q, {"axis": like.perm.index(axis)})
    return Act(out, like.perm)


def pad(b: Builder, x: Act, pads: list[int], fill: int, name: str) -> Act:
    """ONNX Pad (constant mode): pads [begin..., end...] in ONNX axis order; `fill` is the stored value."""
    r = x.rank
    if len(pads) != 2 * r:
        raise UnsupportedError(f"{name}: {len(pads)} pads for a {r}-D tensor")
    widths = [(int(pads[a]), int(pads[a + r])) for a in x.perm]
    return Act(pad_tensor(b, x.tensor, widths, fill, name), x.perm)


def reshape(b: Builder, x: Act, shape: tuple[int, ...], name: str) -> Act:
    """Reshape to a resolved ONNX shape: needs ONNX element order, so the input goes to identity layout."""
    x = b.to_layout(x, identity(x.rank))
    return Act(b.reshape(x.tensor, shape, name), identity(len(shape)), x.divisor)


def resolve_shape(in_shape: tuple[int, ...], spec: list[int], allowzero: bool, name: str) -> tuple[int, ...]:
    """ONNX Reshape's target shape: 0 copies the input dimension (unless allowzero), -1 is inferred."""
    out = [in_shape[i] if d == 0 and not allowzero else int(d) for i, d in enumerate(spec)]
    total = math.prod(in_shape)
    if out.count(-1) == 1:
        known = math.prod(d for d in out if d != -1)
        out[out.index(-1)] = total // known if known else 0
    if math.prod(out) != total or any(d < 0 for d in out):
        raise UnsupportedError(f"{name}: cannot reshape {list(in_shape)} to {spec}")
    return tuple(out)


def transpose(x: Act, perm: list[int] | None) -> Act:
    """ONNX Transpose moves no data: only the layout label changes."""
    p = list(range(x.rank))[::-1] if not perm else [int(a) for a in perm]
    return Act(x.tensor, tuple(p.index(a) for a in x.perm), x.divisor)
