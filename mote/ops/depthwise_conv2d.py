"""DEPTHWISE_CONV_2D: each input channel convolved with its own depth_multiplier filters.

Bit-exact with TFLite Micro's DepthwiseConvPerChannel: output channel oc = ic * depth_multiplier + m
reads input channel ic and filter column oc; out-of-bounds taps contribute nothing; requantization
is per output channel (quantized dimension 3 of the 1HW(C*M) filter).

Kernels (the table KERNELS, first that accepts wins): for sub-byte weights, mote_depthwise_conv_packed_s8
(mote.ops.subbyte_kernels); mote_depthwise_conv_3x3_s8 for 3x3 filters
with depth multiplier 1 and no dilation (any stride and padding) when its accumulator bounds hold
(then `folded_bias` is set): sixteen channels at a time, weights packed by `pack_3x3`, pixel pairs at
stride 1; mote_depthwise_conv_channels_s8 for any other filter with depth multiplier 1: a pixel's taps
over its contiguous channels into int32 accumulators in scratch (about twice as fast as the generic
kernel on the host and on rv32); mote_depthwise_conv_multiplier_s8 for depth multipliers above 1
(an input pixel read once per tap into up to eight register accumulators); mote_depthwise_conv_s8
otherwise. On a scalar core (Core.SCALAR: rv32imc), the 3x3 case of one image at stride 1 or 2 across
(padding at most a column a side) runs as mote_depthwise_conv_band_s8 (mote.ops.depthwise_band): channel by
channel, one row of outputs at a time read in place, each output requantized as its window completes, rows
whose filter rows leave the input in bands of their own; the other 3x3 cases there
run as mote_depthwise_conv_rows_s8: one channel and one row of outputs at a time, read in place,
its nine weights and output stage in registers (a small frame, every window within 16 rows by 16
columns and at most 64 outputs, from a copy of the channel on the stack bordered with the zero
point, without bounds tests, its outputs requantized in one pass); any other depthwise convolution there runs as
mote_depthwise_conv_plane_s8 (mote.ops.depthwise_plane) when its accumulator bound holds: each input
channel copied into a plane bordered with the zero point (scratch), so that every window is complete and
starts from a folded bias, then blocks of four pixels by four, two or one output channels, or of eight
pixels by one, in registers. A 3x3 layer of a legacy uint8 model whose weights have a
zero point runs with those weights minus their zero point, int16, on the band kernel on scalar cores where it
takes the shape (its wide_weights) and otherwise on the rows kernel (mote_depthwise_conv_offset_rows_s8,
mote.ops.filter_offset).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.c_text import c_struct
from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import (
    armv6m_kernels,
    blocked_16x8,
    blocked_f32,
    depthwise_band,
    depthwise_conv2d_f32,
    depthwise_plane,
    dsp_kernels,
    subbyte_depthwise,
    subbyte_kernels,
    weighted_16x8,
)
from mote.ops import filter_offset as offset_kernels
from mote.ops.accumulator_range import check_accumulator_range
from mote.ops.common import activation_range
from mote.ops.conv_common import (
    bias_array,
    const_data,
    conv_multipliers,
    filter_offset,
    fits_int32,
    fold_bias,
    max_abs,
    requantize,
)
from mote.ops.depthwise_band import frame
from mote.ops.depthwise_params import DepthwiseParams, widened
from mote.ops.output_stage import output_multipliers, output_stage
from mote.ops.registry import WINDOW_ATTRS, CCall, Core, Emitter, Kernel, OpDef, attr, dtype_columns, register
from mote.ops.window_checks import check_depthwise_conv2d
from mote.ops.windows import interior, layer_windows, window_geometry


def prepare(node: Node) -> DepthwiseParams:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None
    data = const_data(w, "filter", node).astype(np.int8)
    n, h, wd, c = x.shape
    one, fh, fw, oc = data.shape
    m = int(attr(node, "depth_multiplier"))
    if one != 1 or m < 1 or oc != c * m:
        raise UnsupportedError(f"node {node.name!r}: depthwise filter shape {data.shape} does not match "
                               f"{c} input channels times depth_multiplier {m}")
    offset = filter_offset(node, w)
    g = window_geometry(node, (h, wd), (fh, fw))
    act_min, act_max = activation_range(attr(node, "activation"), out)
    multiplier, shift = conv_multipliers(x, w, out, oc)
    bias = bias_array(node, oc)
    weights = data.reshape(fh, fw, oc)
    input_offset = -x.zero_point
    check_accumulator_range(node, weights.reshape(fh * fw, oc).T.astype(np.int64) + offset, bias, input_offset,
                            multiplier, shift, out.zero_point)
    folded = None
    if fh == fw == 3 and m == 1 and g.dilation == (1, 1) and offset == 0:
        folded64 = fold_bias(bias, weights.reshape(9, oc).T, input_offset)
        # Interior pixels start from the folded bias and add 9 products of magnitude at most 128*128,
        # border pixels from the bias and add at most 9 terms of magnitude 255*128.
        if fits_int32(max_abs(folded64) + 9 * 128 * 128) and fits_int32(max_abs(bias) + 9 * 255 * 128):
            folded = folded64.astype(np.int32)
    return DepthwiseParams(n, h, wd, c, *g.out, m, fh, fw, *g.stride, *g.dilation, *g.pad, input_offset,
                           out.zero_point, act_min, act_max, weights, bias, multiplier, shift, folded, offset)


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None
    g = window_geometry(node, (x.shape[1], x.shape[2]), (w.shape[1], w.shape[2]))
    return [(x.shape[0], *g.out, w.shape[3])]


def reference(node: Node, p: DepthwiseParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [requantize(accumulate(node, p, inputs), p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)]


def accumulate(node: Node, p: DepthwiseParams, inputs: list[np.ndarray]) -> np.ndarray:
    """The int32 accumulators, bias included, before requantization (what an accelerator may stop at)."""
    win = layer_windows(p, inputs[0])
    per_output = win[..., np.arange(p.out_ch) // p.depth_multiplier]  # input channel of each output channel
    acc = np.einsum("nyxijc,ijc->nyxc", per_output, p.weights.astype(np.int64) + p.filter_offset)
    return acc if p.bias is None else acc + p.bias


def pack_3x3(weights: np.ndarray) -> np.ndarray:
    """[3, 3, C] weights in mote_depthwise_conv_3x3_s8's order: blocks of 16 channels as [9][16] (the
    sixteen weights of a tap contiguous, so one pointer and fixed offsets reach all nine taps), then
    the last C % 16 channels as [9][C % 16]."""
    taps = weights.reshape(9, -1)
    c16 = taps.shape[1] // 16 * 16
    blocks = taps[:, :c16].reshape(9, -1, 16).transpose(1, 0, 2)
    return np.concatenate([blocks.reshape(-1), taps[:, c16:].reshape(-1)]).astype(np.int8)


def _args(node: Node, em: Emitter) -> list[str]:
    x = node.inputs[0]
    assert x is not None
    return [em.tensor(x), em.tensor(node.outputs[0])]


def _pack_rows(node: Node, p: DepthwiseParams, em: Emitter, weights: str | None = None) -> CCall:
    args = _args(node, em)
    assert p.folded_bias is not None
    f = frame(p)
    return CCall("mote_depthwise_conv_rows_s8", "mote_depthwise_conv_rows_params", {
        "batches": p.batches, "in_ch": p.in_ch, **f.c_fields(), "input_offset": p.input_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": weights or em.const(f.weights.reshape(9, -1).T.copy(), "weights"),
        "folded_bias": em.const(p.folded_bias, "folded_bias"),
        "output_stage": output_stage(em, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)}, args)


def _common(p: DepthwiseParams, em: Emitter) -> tuple[dict[str, int | str], dict[str, int | str]]:
    """The fields both the 3x3 and the generic kernel have: geometry and quantization, then tensors."""
    common: dict[str, int | str] = {
        name: getattr(p, name) for name in (
            "batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "stride_h", "stride_w", "pad_top", "pad_left",
            "input_offset", "output_offset", "act_min", "act_max")}
    tensors: dict[str, int | str] = {
        "bias": "NULL" if p.bias is None else em.const(p.bias, "bias"),
        "multiplier": em.const(p.multiplier, "multiplier")}
    return common, tensors


def _pack_3x3(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    args = _args(node, em)
    common, tensors = _common(p, em)
    y_lo, y_hi = interior(p.out_h, p.in_h, p.stride_h, p.pad_top, 3)
    x_lo, x_hi = interior(p.out_w, p.in_w, p.stride_w, p.pad_left, 3)
    left_mul, right_mul = output_multipliers(p.shift)
    return CCall("mote_depthwise_conv_3x3_s8", "mote_depthwise_conv_3x3_params", {
        **common, "interior_y0": y_lo, "interior_y1": y_hi, "interior_x0": x_lo, "interior_x1": x_hi,
        "weights": em.const(pack_3x3(p.weights), "weights"), **tensors, "left_mul": em.const(left_mul, "left_mul"),
        "right_mul": em.const(right_mul, "right_mul"), "folded_bias": em.const(p.folded_bias, "folded_bias")}, args)


def _pack_generic(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    args = _args(node, em)
    common, tensors = _common(p, em)
    fields = {**common, "depth_multiplier": p.depth_multiplier, "filter_h": p.filter_h, "filter_w": p.filter_w,
              "dilation_h": p.dilation_h, "dilation_w": p.dilation_w, "weights": em.const(p.weights, "weights"),
              **tensors, "shift": em.const(p.shift, "shift")}
    return CCall("mote_depthwise_conv_s8", "mote_depthwise_conv_params", fields, args)


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1] * w.shape[2]


def _accepts_3x3(node: Node, p: DepthwiseParams) -> str | None:
    if p.filter_h != 3 or p.filter_w != 3:
        return "filter not 3x3"
    if p.depth_multiplier != 1:
        return "depth multiplier != 1"
    if p.dilation_h != 1 or p.dilation_w != 1:
        return "dilated"
    return "accumulator may exceed int32" if p.folded_bias is None else None


def _accepts_offset_rows(node: Node, p: DepthwiseParams) -> str | None:
    """A legacy uint8 3x3 layer on the rows kernel, its weights w + filter_offset (|w| <= 255) in registers."""
    if not p.filter_offset:
        return "weights without a zero point"
    if p.filter_h != 3 or p.filter_w != 3 or p.depth_multiplier != 1 or p.dilation_h != 1 or p.dilation_w != 1:
        return "not 3x3, depth multiplier 1, undilated"
    return None if widened(p) is not None else "accumulator may exceed int32"


def _pack_offset_rows(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    wide = widened(p)
    assert wide is not None
    call = _pack_rows(node, wide, em, weights="NULL")
    weights = frame(wide).weights.reshape(9, -1).T.astype(np.int16)
    return CCall("mote_depthwise_conv_offset_rows_s8", "mote_depthwise_conv_offset_rows_params",
                 {"rows": c_struct(call.fields), "weights": em.const(np.ascontiguousarray(weights), "weights")},
                 call.args)


def _pack_channels(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    return replace(_pack_generic(node, p, em), func="mote_depthwise_conv_channels_s8")  # the generic's params


def _accepts_channels(node: Node, p: DepthwiseParams) -> str | None:
    return None if p.depth_multiplier == 1 else "depth multiplier != 1"


def _pack_multiplier(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    return replace(_pack_generic(node, p, em), func="mote_depthwise_conv_multiplier_s8")  # the generic's params


def _accepts_multiplier(node: Node, p: DepthwiseParams) -> str | None:
    return None if p.depth_multiplier > 1 else "depth multiplier 1"


def _channels_scratch(node: Node, p: DepthwiseParams) -> int:
    return 4 * p.in_ch


ALL_CORES = frozenset(Core)
KERNELS = (
    blocked_16x8.DEPTHWISE_KERNEL,
    weighted_16x8.DEPTHWISE_KERNEL,
    blocked_f32.DEPTHWISE_KERNEL,
    depthwise_conv2d_f32.KERNEL,
    subbyte_depthwise.KERNEL, subbyte_kernels.DEPTHWISE_KERNEL,
    depthwise_band.SINGLE_KERNEL,
    dsp_kernels.DEPTHWISE_KERNEL,
    armv6m_kernels.DEPTHWISE_KERNEL,
    depthwise_band.KERNEL,
    Kernel("mote_depthwise_conv_rows_s8", frozenset({Core.SCALAR}), _pack_rows, _accepts_3x3),
    depthwise_plane.KERNEL,
    Kernel("mote_depthwise_conv_3x3_s8", ALL_CORES, _pack_3x3, _accepts_3x3),
    Kernel("mote_depthwise_conv_channels_s8", ALL_CORES, _pack_channels, _accepts_channels, _channels_scratch,
           scratch_why="one pixel's int32 accumulators"),
    Kernel("mote_depthwise_conv_multiplier_s8", ALL_CORES, _pack_multiplier, _accepts_multiplier),
    Kernel("mote_depthwise_conv_s8", ALL_CORES, _pack_generic),
)


# Per activation dtype: (check, prepare, reference).
BY_DTYPE = {DType.INT16: weighted_16x8.DEPTHWISE, DType.INT8: (check_depthwise_conv2d, prepare, reference),
            DType.FLOAT32: (depthwise_conv2d_f32.check, depthwise_conv2d_f32.prepare, depthwise_conv2d_f32.reference)}

OFFSET_ROWS = Kernel("mote_depthwise_conv_offset_rows_s8", ALL_CORES, _pack_offset_rows, _accepts_offset_rows)
TABLE = offset_kernels.with_filter_offset(KERNELS, offset_kernels.DEPTHWISE, (depthwise_band.KERNEL, OFFSET_ROWS))
_check, _prepare, _reference = dtype_columns(BY_DTYPE)
OP = register(OpDef("depthwise_conv2d", shape, _prepare, _reference, _pack_generic, macs, tflite=("DEPTHWISE_CONV_2D",),
                    accumulate=accumulate, check=_check, kernels=TABLE,
                    attrs={**WINDOW_ATTRS, "depth_multiplier": 1},
                    dtypes=tuple(BY_DTYPE)))
