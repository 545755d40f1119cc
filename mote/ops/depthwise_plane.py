"""mote_depthwise_conv_plane_s8, the scalar core's depthwise convolution for the filters and depth
multipliers the 3x3 rows kernel does not take (and, as mote_conv_plane_s8, a convolution of a one-channel
input, which is a depthwise convolution whose multiplier is its output channels).

Each input channel is copied into a plane in scratch bordered with the input zero point, so every window
is complete: its padding taps give w * (zp + input_offset) = 0, and it starts from the folded bias, bias +
input_offset * the sum of its filter, then adds products of raw int8 values. Blocks of four pixels of a
row (eight with one lane) by four, two or one output channels keep their sums in registers. Two filters
common in real models and short enough that the per-output requantization weighs (3x3 at stride 1 with an
even depth multiplier, 5x5 at stride 2 with one lane) take blocks of eight pixels whose loops are all
constant, on a plane that interleaves four input channels, so that a pixel's four channels are copied as one
word (a one-channel input keeps a plane of one with the 3x3 filter).
"""

from __future__ import annotations

import numpy as np

from mote.ints import round_up
from mote.ir import Node
from mote.ops.conv_common import fits_int32, fold_bias, max_abs
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel

GEOMETRY = ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "depth_multiplier")
WINDOW = ("filter_h", "filter_w", "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left")


def _fixed_window(p: DepthwiseParams, size: int, stride: int) -> bool:
    return (p.filter_h, p.filter_w, p.stride_w, p.dilation_w) == (size, size, stride, 1) and p.out_w >= 8


def fixed(p: DepthwiseParams) -> bool:
    """The filters the kernel has constant-size blocks of eight pixels for (mote_depthwise_conv_plane_fixed.h):
    3x3 at stride 1 by two lanes (an even depth multiplier), 5x5 at stride 2 by one (an odd one), taps
    adjacent across, rows of at least eight outputs (the last block of a row overlaps the one before). Their
    plane interleaves four input channels (plane_group), but for a 3x3 filter on a one-channel input."""
    return ((_fixed_window(p, 3, 1) and p.depth_multiplier % 2 == 0)
            or (_fixed_window(p, 5, 2) and p.depth_multiplier % 2 == 1))


def pixels(p: DepthwiseParams) -> int:
    """Pixels per block: eight with one lane on rows longer than four or a fixed filter, else four."""
    return 8 if fixed(p) or (lanes(p) == 1 and p.out_w > 4) else 4


def plane_shape(p: DepthwiseParams) -> tuple[int, int]:
    """The plane, rows by columns: the input with its top and left padding, and every tap of every window
    of a row's last block of pixels (with a fixed filter, of the row's last pixel)."""
    last_x = p.out_w - 1 if fixed(p) else round_up(p.out_w, pixels(p)) - 1
    return (max(p.pad_top + p.in_h, (p.out_h - 1) * p.stride_h + (p.filter_h - 1) * p.dilation_h + 1),
            max(p.pad_left + p.in_w, last_x * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1))


def folded_bias(p: DepthwiseParams) -> np.ndarray:
    """int64 bias + input_offset * the sum of each output channel's filter."""
    return fold_bias(p.bias, p.weights.reshape(p.filter_h * p.filter_w, p.out_ch).T, p.input_offset)


def accepts(node: Node, p: DepthwiseParams) -> str | None:
    # Every window complete: the folded bias plus taps products of raw int8 values, each at most 2^14.
    if not fits_int32(max_abs(folded_bias(p)) + p.filter_h * p.filter_w * 128 * 128):
        return "accumulator may exceed int32"
    return None


def lanes(p: DepthwiseParams) -> int:
    """Output channels per block, of one input channel: four, two or one, as the multiplier divides (two
    for a fixed 3x3 filter)."""
    if _fixed_window(p, 3, 1) and p.depth_multiplier % 2 == 0:
        return 2
    return next(n for n in (4, 2, 1) if p.depth_multiplier % n == 0)


def pack(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    n, taps, m = lanes(p), p.filter_h * p.filter_w, p.depth_multiplier
    # [taps][in_ch][m / n][n] -> [in_ch][m / n][taps][n]: a block's weights in the order it reads them
    weights = p.weights.reshape(taps, p.in_ch, m // n, n).transpose(1, 2, 0, 3)
    plane_h, plane_w = plane_shape(p)
    return CCall("mote_depthwise_conv_plane_s8", "mote_depthwise_conv_plane_params", {
        **{name: getattr(p, name) for name in GEOMETRY}, "lanes": n, "pixels": pixels(p),
        **{name: getattr(p, name) for name in WINDOW},
        "plane_h": plane_h, "plane_w": plane_w, "plane_group": plane_group(p), "zero_point": -p.input_offset,
        "output_offset": p.output_offset,
        "act_min": p.act_min, "act_max": p.act_max, "weights": em.const(np.ascontiguousarray(weights), "weights"),
        "folded_bias": em.const(folded_bias(p).astype(np.int32), "folded_bias"),
        "output_stage": output_stage(em, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max),
        "fixed_row": fixed_row(p) or 0}, args)


def fixed_row(p: DepthwiseParams) -> str | None:
    """The row function of a fixed filter (a C function of its own, linked only where a model uses it)."""
    if not fixed(p):
        return None
    if _fixed_window(p, 5, 2):
        return "mote_depthwise_conv_plane_5x5_s2_s8"
    return "mote_depthwise_conv_plane_3x3_s8" if plane_group(p) == 4 else "mote_depthwise_conv_plane_3x3_one_s8"


def plane_group(p: DepthwiseParams) -> int:
    """Input channels interleaved in the plane: four for the fixed filters (a pixel's four channels copied as
    one word), but one for a 3x3 filter on a one-channel input (the first layer of many models: its plane
    stays a quarter of the size), else one."""
    return 4 if fixed(p) and not (p.in_ch == 1 and _fixed_window(p, 3, 1)) else 1


def scratch(node: Node, p: DepthwiseParams) -> int:
    plane_h, plane_w = plane_shape(p)
    return plane_h * plane_w * plane_group(p)


SCRATCH_WHY = "one input channel's plane (four interleaved for a fixed filter), bordered with the zero point"
KERNEL = Kernel("mote_depthwise_conv_plane_s8", frozenset({Core.SCALAR}), pack, accepts, scratch,
                scratch_why=SCRATCH_WHY)
