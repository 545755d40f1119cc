"""TRANSPOSE_CONV: the gradient of a convolution, NHWC, float32, int8 or int16 (16x8), as TFLite Micro's
reference kernels compute it. Inputs [output_shape (constant), filter [oc, fh, fw, ic] (constant), x, bias
(optional)]; attrs padding, stride, activation. Padding is a convolution's over the output size.

Each input pixel scatters x[iy, ix, ic] * w[oc, fy, fx, ic] onto output (iy * stride - pad + fy, ...), the
contributions taken in the order (iy, ix, ic, fy, fx): float32 sums start at 0 in the output and round at
every addition (the numpy reference adds them in the same order); then bias and the activation clamp.
int8 sums (x - input_zp) * w in int32, requantizes per channel as a convolution does, adds the output zero
point; int16 sums x * w in int64 (bias int64, or int16 widened) with TFLite's int64 requantization and no
zero points. The integer kernels scatter into a scratch accumulator the size of the output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.common import activation_range, out_size_and_pad
from mote.ops.conv_common import conv_multipliers
from mote.ops.float_common import F32_MAX, FLOAT_RANGES, c_float, clamp
from mote.ops.registry import CCall, Emitter, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64

WEIGHTS = {DType.FLOAT32: DType.FLOAT32, DType.INT8: DType.INT8, DType.INT16: DType.INT8}
BIASES = {DType.FLOAT32: (DType.FLOAT32,), DType.INT8: (DType.INT32,), DType.INT16: (DType.INT64, DType.INT16)}


@dataclass(frozen=True, eq=False)
class TransposeConvParams:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    pad_top: int
    pad_left: int
    weights: np.ndarray  # [oc, fh, fw, ic]
    bias: np.ndarray  # [oc]: float32, or int64 for the integer kernels (zeros when absent)
    input_offset: int = 0  # int8: -input zero point
    output_offset: int = 0  # int8: output zero point
    act_min: float = -F32_MAX
    act_max: float = F32_MAX
    multiplier: np.ndarray | None = None  # integers: per output channel
    shift: np.ndarray | None = None


def check(node: Node) -> None:
    checks.input_count(node, 3, 4)
    shape_t, w, x = (checks.present(node, i, role) for i, role in ((0, "output shape"), (1, "filter"), (2, "input")))
    checks.dtype(node, x, "input", *WEIGHTS)
    checks.rank(node, x, "input", 4)
    checks.dtype(node, shape_t, "output shape", DType.INT32)
    checks.constant(node, shape_t, "output shape")
    checks.dtype(node, w, "filter", WEIGHTS[x.dtype])
    checks.constant(node, w, "filter")
    checks.rank(node, w, "filter", 4)
    out = node.outputs[0]
    checks.dtype(node, out, "output", x.dtype)
    if list(np.asarray(shape_t.data).reshape(-1)) != list(out.shape) or len(out.shape) != 4:
        raise checks.fail(node, f"the output shape {np.asarray(shape_t.data).tolist()} differs from the output "
                                f"{list(out.shape)}")
    if w.shape[3] != x.shape[3] or out.shape[0] != x.shape[0] or out.shape[3] != w.shape[0]:
        raise checks.fail(node, f"filter {list(w.shape)}, input {list(x.shape)} and output {list(out.shape)} do not "
                                "fit together")
    bias = node.inputs[3] if len(node.inputs) > 3 else None
    if bias is not None:
        checks.dtype(node, bias, "bias", *BIASES[x.dtype])
        checks.constant(node, bias, "bias")
        if bias.size != out.shape[3]:
            raise checks.fail(node, f"the bias has {bias.size} values for {out.shape[3]} output channels")
    checks.padding(node)
    checks.window_pair(node, "stride")
    if x.dtype is DType.FLOAT32:
        if attr(node, "activation") not in FLOAT_RANGES:
            raise checks.fail(node, f"fused activation {attr(node, 'activation')!r} is not supported")
        return
    checks.activation(node)
    for t, role in ((x, "input"), (out, "output")):
        checks.quantized(node, t, role)
        if x.dtype is DType.INT16 and t.zero_point != 0:
            raise checks.fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro's 16x8 "
                                    "kernels assume 0")
    checks.quantized(node, w, "filter", per_channel_axis=0)


def shape(node: Node) -> list[tuple[int, ...]]:
    shape_t = node.inputs[0]
    assert shape_t is not None and shape_t.data is not None
    return [tuple(int(v) for v in np.asarray(shape_t.data).reshape(-1))]


def prepare(node: Node) -> TransposeConvParams:
    w, x, out = node.inputs[1], node.inputs[2], node.outputs[0]
    bias = node.inputs[3] if len(node.inputs) > 3 else None
    assert w is not None and x is not None and w.data is not None
    n, h, wd, ic = x.shape
    oc, fh, fw, _ = w.shape
    sh, sw = attr(node, "stride")
    padding = attr(node, "padding")
    pad_top, pad_left = out_size_and_pad(out.shape[1], fh, sh, 1, padding)[1], \
        out_size_and_pad(out.shape[2], fw, sw, 1, padding)[1]
    geometry = (n, h, wd, ic, out.shape[1], out.shape[2], oc, fh, fw, sh, sw, pad_top, pad_left)
    if x.dtype is DType.FLOAT32:
        b = np.zeros(oc, np.float32) if bias is None or bias.data is None else bias.data.astype(np.float32).reshape(-1)
        lo, hi = FLOAT_RANGES[attr(node, "activation")]
        return TransposeConvParams(*geometry, np.asarray(w.data, np.float32), b, act_min=lo, act_max=hi)
    b = np.zeros(oc, np.int64) if bias is None or bias.data is None else bias.data.astype(np.int64).reshape(-1)
    multiplier, shift = conv_multipliers(x, w, out, oc)
    lo, hi = activation_range(attr(node, "activation"), out)
    offsets = (-x.zero_point, out.zero_point) if x.dtype is DType.INT8 else (0, 0)
    return TransposeConvParams(*geometry, np.asarray(w.data, np.int8), b, *offsets, lo, hi, multiplier, shift)


def _scatter(p: TransposeConvParams, x: np.ndarray, dtype: type) -> np.ndarray:
    """The sums before bias, in the reference kernel's order for every output element: contributions by
    ascending input row, column and channel, i.e. descending filter row and column."""
    padded = np.zeros((p.batches, p.out_h + p.pad_top + p.filter_h + p.stride_h * p.in_h,
                       p.out_w + p.pad_left + p.filter_w + p.stride_w * p.in_w, p.out_ch), dtype)
    for fy in range(p.filter_h - 1, -1, -1):
        for fx in range(p.filter_w - 1, -1, -1):
            rows = slice(fy, fy + p.stride_h * p.in_h, p.stride_h)
            cols = slice(fx, fx + p.stride_w * p.in_w, p.stride_w)
            for c in range(p.in_ch):
                terms = x[:, :, :, c:c + 1] * p.weights[:, fy, fx, c].astype(dtype)
                padded[:, rows, cols] = (padded[:, rows, cols] + terms).astype(dtype)
    return padded[:, p.pad_top:p.pad_top + p.out_h, p.pad_left:p.pad_left + p.out_w]


def reference(node: Node, p: TransposeConvParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = inputs[2]
    out = node.outputs[0]
    if out.dtype is DType.FLOAT32:
        acc = (_scatter(p, np.asarray(x, np.float32), np.float32) + p.bias).astype(np.float32)
        return [clamp(acc, p.act_min, p.act_max)]
    acc = _scatter(p, np.asarray(x, np.int64) + p.input_offset, np.int64) + p.bias
    if out.dtype is DType.INT8:
        scaled = multiply_by_quantized_multiplier((acc + 2**31) % 2**32 - 2**31, p.multiplier, p.shift)
    else:
        scaled = multiply_by_quantized_multiplier_64(acc, p.multiplier, p.shift)
    return [np.clip(scaled + p.output_offset, p.act_min, p.act_max).astype(out.dtype.np)]


def scratch_bytes(node: Node, p: TransposeConvParams) -> int:
    width = {DType.FLOAT32: 0, DType.INT8: 4, DType.INT16: 8}[node.outputs[0].dtype]
    return width * p.batches * p.out_h * p.out_w * p.out_ch


def emit(node: Node, p: TransposeConvParams, em: Emitter) -> CCall:
    x, out = node.inputs[2], node.outputs[0]
    assert x is not None
    fields: dict[str, int | str] = {
        k: getattr(p, k) for k in ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h",
                                   "filter_w", "stride_h", "stride_w", "pad_top", "pad_left")}
    fields["weights"] = em.const(p.weights, "weights")
    if out.dtype is DType.FLOAT32:
        fields.update(bias=em.const(p.bias, "bias"), act_min=c_float(p.act_min), act_max=c_float(p.act_max))
        return CCall("mote_transpose_conv_f32", "mote_transpose_conv_f32_params", fields,
                     [em.tensor(x), em.tensor(out)])
    assert p.multiplier is not None and p.shift is not None
    fields.update(bias=em.const(p.bias.astype(np.int64), "bias"), input_offset=p.input_offset,
                  output_offset=p.output_offset, act_min=int(p.act_min), act_max=int(p.act_max),
                  multiplier=em.const(p.multiplier.astype(np.int32), "multiplier"),
                  shift=em.const(p.shift.astype(np.int32), "shift"))
    func = "mote_transpose_conv_s8" if out.dtype is DType.INT8 else "mote_transpose_conv_s16"
    return CCall(func, "mote_transpose_conv_int_params", fields, [em.tensor(x), em.tensor(out)])


def macs(node: Node) -> int:
    w, x = node.inputs[1], node.inputs[2]
    assert w is not None and x is not None
    return x.size * w.shape[0] * w.shape[1] * w.shape[2]


OP = register(OpDef("transpose_conv", shape, prepare, reference, emit, macs, scratch_bytes, tflite=("TRANSPOSE_CONV",),
                    check=check, attrs={"stride": (1, 1), "padding": "SAME", "activation": "NONE"},
                    dtypes=(DType.INT8, DType.INT16, DType.FLOAT32)))
