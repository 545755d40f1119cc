"""CONV2D_RQS: an integer-dialect convolution and its RequantShift as one int8-output layer.

    out[n, y, x, oc] = RequantShift(bias[oc] + sum over in-bounds taps of w[oc, i, j, c] * (x[..] + input_offset))
exactly as conv2d_s32 followed by requant_shift computes it (mote.passes.fuse_requant makes this op of
the pair): RequantShift's multiplier and addend per output channel (or one for all), its divisor,
rounding and clip to n_levels signed or unsigned levels. The accumulators never leave the registers
of the blocked kernel (mote_conv_requant_shift_s8 runs mote_conv_blocked_s8 on every core): its
output-stage table holds RequantShift rows (mote.ops.requant_stage); weights of -128 take the split-weights
form (mote_conv_blocked_wide_s8); a grouped or depthwise convolution runs mote_conv_grouped_requant_shift_s8
(channel by channel, each sum in a register; a depthwise 3x3 filter's weights in registers). Accumulators inside
int32 (the pass fuses nothing else).

inputs [x int8 NHWC, w int8 OHWI, bias int32 [out_ch] | None, mul int32 [out_ch | 1], add int32 [out_ch | 1]];
attrs stride, dilation, pads (as conv2d_s32), divisor, n_levels, signed (as requant_shift).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import conv2d_s32, requant_shift
from mote.ops.conv2d_kernels import ALL_CORES, BLOCKED
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.filter_offset_conv import WIDE_KERNEL as WIDE
from mote.ops.registry import REQUIRED, CCall, Emitter, Kernel, OpDef, register
from mote.ops.requant_shift import RequantShiftParams
from mote.ops.requant_stage import requant_shift_rows
from mote.ops.windows import grouped_conv, layer_windows

CONV_ATTRS = ("stride", "dilation", "pads")
RQS_ATTRS = ("divisor", "n_levels", "signed")


def parts(node: Node) -> tuple[Node, Node]:
    """The conv2d_s32 and requant_shift nodes this layer stands for (sharing an int32 accumulator tensor)."""
    x, w, b, mul, add = node.inputs
    out = node.outputs[0]
    acc = Tensor(f"{out.name}_acc", out.shape, DType.INT32)
    conv = Node("conv2d_s32", node.name, [x, w, b], [acc], {k: node.attrs[k] for k in CONV_ATTRS if k in node.attrs})
    rqs = Node("requant_shift", node.name, [acc, mul, add], [out], {k: node.attrs[k] for k in RQS_ATTRS})
    return conv, rqs


def _params(c: conv2d_s32.ConvS32Params, r: RequantShiftParams) -> ConvParams:
    zeros = np.zeros(c.out_ch, np.int32)
    return ConvParams(c.batches, c.in_h, c.in_w, c.in_ch, c.out_h, c.out_w, c.out_ch, c.filter_h, c.filter_w,
                      c.filter_in_ch, c.stride_h, c.stride_w, c.dilation_h, c.dilation_w, c.pad_top, c.pad_left,
                      c.input_offset, r.output_offset, r.act_min + r.output_offset, r.act_max + r.output_offset,
                      c.weights, c.bias, zeros, zeros)


def why_not(c: conv2d_s32.ConvS32Params, r: RequantShiftParams) -> str | None:
    """None when one of the kernels computes the pair exactly (the blocked ones, or for a grouped or depthwise
    convolution mote_conv_grouped_requant_shift_s8), else why not."""
    if r.ties_away:
        return "exact halves rounded away from zero (an integer mean)"
    if r.divisor >= 2**32:
        return "divisor of 2^32 or more"
    if r.input_offset != 0 or r.channels not in (1, c.out_ch):
        return "requantization not per output channel"
    if c.in_ch // c.filter_in_ch != 1:
        return None  # conv2d_s32 checked that no sum leaves int32
    p = _params(c, r)
    if int(c.weights.min(initial=0)) < -127:
        return WIDE.accepts(None, p)  # type: ignore[arg-type]  # reads only the params
    taps = c.filter_h * c.filter_w * c.filter_in_ch
    return None if fits_int32(max_abs(p.folded) + taps * 128 * 128) else "accumulator may exceed int32"


def prepare(node: Node) -> ConvParams:
    conv, rqs = parts(node)
    c, r = conv2d_s32.prepare(conv), requant_shift.prepare(rqs)
    if reason := why_not(c, r):
        raise UnsupportedError(f"node {node.name!r} (conv2d_rqs): {reason}")
    return replace(_params(c, r), output_rows=requant_shift_rows(r, c.out_ch))


def _rqs(node: Node) -> RequantShiftParams:
    return requant_shift.prepare(parts(node)[1])


def shape(node: Node) -> list[tuple[int, ...]]:
    return conv2d_s32.shape(parts(node)[0])


def reference(node: Node, p: ConvParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    acc = grouped_conv(layer_windows(p, inputs[0]), p.weights.astype(np.int64), p.groups)
    if p.bias is not None:
        acc = acc + p.bias
    r = _rqs(node)
    mul = np.broadcast_to(r.mul, (p.out_ch,))
    add = np.broadcast_to(r.add, (p.out_ch,))
    per = RequantShiftParams(p.out_ch, p.out_ch, 0, r.output_offset, r.act_min, r.act_max, r.divisor, r.shift,
                             mul, add)
    return [requant_shift.outputs(acc, per).astype(np.int8)]


def _emit(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return KERNELS[-1].pack(node, p, em)


def macs(node: Node) -> int:
    return conv2d_s32.macs(parts(node)[0])


def _pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return replace(BLOCKED.pack(node, p, em), func="mote_conv_requant_shift_s8")


def _pack_wide(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return replace(WIDE.pack(node, p, em), func="mote_conv_requant_shift_wide_s8")


def _accepts_wide(node: Node, p: ConvParams) -> str | None:
    return None if int(p.weights.min(initial=0)) < -127 else "weights in [-127, 127]"


def _pack_grouped(node: Node, p: ConvParams, em: Emitter) -> CCall:
    assert p.output_rows is not None
    fields: dict[str, int | str] = {k: getattr(p, k) for k in (
        "batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "filter_in_ch",
        "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left", "input_offset", "output_offset",
        "act_min", "act_max")}
    fields.update(weights=em.const(p.weights, "weights"),
                  bias="NULL" if p.bias is None else em.const(p.bias, "bias"),
                  output_stage=em.const(p.output_rows, "output_stage"))
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_conv_grouped_requant_shift_s8", "mote_conv_grouped_requant_shift_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _accepts_grouped(node: Node, p: ConvParams) -> str | None:
    return None if p.groups != 1 else "not grouped"


# Grouped and depthwise convolutions by their own loops; weights of -128 split as v + s
# (mote_conv_blocked_wide_s8), then the paired products of all others.
KERNELS = (Kernel("mote_conv_grouped_requant_shift_s8", ALL_CORES, _pack_grouped, _accepts_grouped),
           Kernel("mote_conv_requant_shift_wide_s8", ALL_CORES, _pack_wide, _accepts_wide, WIDE.scratch_bytes,
                  twins=WIDE.twins, scratch_why=WIDE.scratch_why),
           Kernel("mote_conv_requant_shift_s8", ALL_CORES, _pack, scratch_bytes=BLOCKED.scratch_bytes,
                  overlap=BLOCKED.overlap, twins=BLOCKED.twins, scratch_why=BLOCKED.scratch_why))

OP = register(OpDef("conv2d_rqs", shape, prepare, reference, _emit, macs, kernels=KERNELS,
                    attrs={"stride": REQUIRED, "dilation": (1, 1), "pads": REQUIRED, "divisor": REQUIRED,
                           "n_levels": REQUIRED, "signed": REQUIRED}))
