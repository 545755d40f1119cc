"""mote_conv_offset_blocked_s8's record: a convolution of a legacy uint8 model whose weights have a zero point
(mote.ops.filter_offset), register-blocked like mote_conv_blocked_s8.

TFLite's uint8 Conv sums (x - x_zp) * (w_u8 - w_zp) over a window's in-bounds taps. With w8 = w_u8 - 128 (the
int8 weights) and filter_offset = 128 - w_zp, that is sum (x - x_zp) * w8 + filter_offset * S with
S = sum (x - x_zp): the first an ordinary int8 convolution, the second one number per output pixel shared by
all its output channels. Padding taps hold x_zp, so they add nothing to either sum. The kernel computes S from
each gathered window; the compile-time bias holds what does not depend on the input.
"""

from __future__ import annotations

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import Node
from mote.ops.conv2d_kernels import pair_words, quad_output_stage, to_quads
from mote.ops.conv2d_params import GEOMETRY, ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.registry import CCall, Core, Emitter, Kernel


def pairs(p: ConvParams) -> int:
    """A window's tap pairs, even: taps rounded up to a multiple of 4, halved."""
    return p.tap_pairs


def offset_bias(p: ConvParams) -> np.ndarray:
    """int64 [out_ch]: the bias (or 0) + input_offset * (the sum of the channel's int8 weights + taps *
    filter_offset): the accumulator of a window whose raw taps sum to 0."""
    bias = np.zeros(p.out_ch, np.int64) if p.bias is None else p.bias.astype(np.int64)
    sums = p.weights.reshape(p.out_ch, -1).astype(np.int64).sum(axis=1)
    return bias + p.input_offset * (sums + p.taps * p.filter_offset)


def accepts(node: Node, p: ConvParams) -> str | None:
    if not p.filter_offset:
        return "weights without a zero point"
    if p.groups != 1:
        return "groups != 1"
    # The bias, then filter_offset * the window's raw taps (each |x| <= 128) and the int8 products.
    if not fits_int32(max_abs(offset_bias(p)) + p.taps * 128 * (128 + abs(p.filter_offset))):
        return "accumulator may exceed int32"
    return None


def pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    n = pairs(p)
    taps = np.pad(p.weights.reshape(p.out_ch, -1).astype(np.int64), ((0, 0), (0, 2 * n - p.taps)))
    words = pair_words(-to_quads(taps))  # negated: each pair's products stay in [-2^15, 2^15)
    interleaved = words.reshape(ceil_div(p.out_ch, 4), 4, n).transpose(0, 2, 1)  # [quad][pair][channel]
    return CCall("mote_conv_offset_blocked_s8", "mote_conv_offset_blocked_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
        "taps": p.taps, "pairs": n, "input_offset": p.input_offset, "filter_offset": p.filter_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(np.ascontiguousarray(interleaved), "weights"),
        "bias": em.const(to_quads(offset_bias(p)).astype(np.int32), "offset_bias"),
        "output_stage": quad_output_stage(em, p)}, args)


def scratch_bytes(node: Node, p: ConvParams) -> int:
    return 16 * pairs(p)


KERNEL = Kernel("mote_conv_offset_blocked_s8", frozenset(Core), pack, accepts, scratch_bytes,
                scratch_why="four windows packed in tap pairs")
