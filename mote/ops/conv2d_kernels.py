"""CONV_2D's kernel table (mote.ops.registry.Kernel), fastest first; each kernel is bit-exact with
the generic one, mote_conv_s8.

On a scalar core (Core.SCALAR: rv32imc), a convolution of a one-channel input into fewer than 32 channels
runs as the depthwise convolution it is (mote_conv_plane_s8, mote.ops.depthwise_plane: blocks of four
pixels by up to four output channels, each input byte loaded once for them); one with complete windows (one of the three
vector kernels below would take it) and weights in [-127, 127] runs register-blocked:
  mote_conv_ring_s8    three filter columns at stride 1 or 2 across, channels in pairs: windows read
                       in place from a ring of the input rows they need, packed two channels a word;
  mote_conv_blocked_s8 any other: windows packed into scratch (same padding rule as im2col); before it, a
                       1x1 at stride 1 with up to 64 input channels takes its inner loop with a one-multiply
                       output stage where every channel has one (mote_conv_pointwise_s8, mote.ops.conv_pointwise).
Both keep four pixels by four output channels in registers, two taps per multiply and four per
rounding where the weights allow (mote.ops.pair_groups), with weights packed at compile time.
On an x86-64 host with AVX-512 VNNI, an ungrouped convolution whose unsigned-input accumulators fit
int32 uses its dot products (mote_conv_vnni_s8). Otherwise, on any core:
  mote_conv_1x1_s8     1x1, stride 1, one group: a matrix product over the pixels, in place.
  mote_conv_im2col_s8  one group, filter rows too short to vectorize (filter_w * in_ch < 16, e.g. a
                       first layer on RGB or audio features) and a window of at most
                       IM2COL_MAX_TAPS taps: windows gathered four at a time into a stack buffer,
                       padding filled with the input zero point.
  mote_conv_rows_s8    one group: dot products along the contiguous input rows under each filter row.
  mote_conv_s8         anything else (groups, or accumulators too close to the int32 limit).
The fast kernels start from biases with input_offset * sum(weights) folded in at compile time and
an output stage that vectorizes (mote_output_stage.h), hence the accumulator bounds checked here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div, round_up
from mote.ir import Node
from mote.ops import depthwise_plane
from mote.ops.conv2d_params import GEOMETRY, QUANT, ConvParams
from mote.ops.conv_common import fits_int32, fold_bias, max_abs
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.output_stage import output_multipliers, output_stage
from mote.ops.pair_groups import pair_runs, ring_kinds
from mote.ops.registry import CCall, Core, Emitter, Kernel, Overlap
from mote.ops.windows import interior

IM2COL_MAX_TAPS = 256  # MOTE_CONV_IM2COL_MAX_TAPS in mote_conv_im2col_s8.h: 4 windows of this on the stack
ALL_CORES = frozenset(Core)


# Accept tests: None when the kernel takes the layer, else why not.

def _bounded(p: ConvParams) -> str | None:
    """Tap-complete windows: the folded bias plus taps products of raw int8 values, each at most 2^14."""
    if p.groups != 1:
        return "groups != 1"
    if not fits_int32(max_abs(p.folded) + p.taps * 128 * 128):
        return "accumulator may exceed int32"
    return None


def _accepts_1x1(node: Node, p: ConvParams) -> str | None:
    return _bounded(p) if p.pointwise else "not 1x1 at stride 1"


def _accepts_im2col(node: Node, p: ConvParams) -> str | None:
    if p.pointwise:
        return "1x1 at stride 1 is a matrix product"
    if reason := _bounded(p):
        return reason
    if (p.filter_w * p.in_ch if p.dilation_w == 1 else p.in_ch) >= 16:
        return "filter rows of 16 or more taps vectorize"
    if p.padded_taps > IM2COL_MAX_TAPS:  # padding taps read the zero point: complete windows
        return f"window over {IM2COL_MAX_TAPS} taps"
    return None


def _accepts_rows(node: Node, p: ConvParams) -> str | None:
    if p.pointwise:
        return "1x1 at stride 1 is a matrix product"
    if reason := _bounded(p):
        return reason
    # Its border columns add taps terms of magnitude at most 255 * 128 to the plain bias; its other
    # pixels start from the bias plus input_offset * the weights of the filter rows inside the input,
    # and add products of raw int8 values: 2^14 + 2^14 per tap at most.
    if not fits_int32(max_abs(p.bias) + p.taps * 2 * 128 * 128):
        return "border accumulator may exceed int32"
    return None


def _accepts_blocked(node: Node, p: ConvParams) -> str | None:
    """Complete windows (a vector kernel above would take the layer), and the paired products' weights
    in [-127, 127], as TFLite's int8 spec has them."""
    reason = _accepts_1x1(node, p) if p.pointwise else _accepts_im2col(node, p) and _accepts_rows(node, p)
    if reason:
        return reason
    return "weights reach -128" if int(p.weights.min(initial=0)) < -127 else None


def ring_fits(p: ConvParams) -> str | None:
    """Why mote_conv_ring_s8 does not take the convolution: it needs three filter columns, stride 1 or 2
    across, no dilation, channels in whole pairs."""
    if p.filter_w != 3:
        return "filter width != 3"
    if p.stride_w not in (1, 2):
        return "stride across not 1 or 2"
    if p.dilation_h != 1 or p.dilation_w != 1:
        return "dilated"
    return "odd input channels" if p.in_ch % 2 else None


def _accepts_ring(node: Node, p: ConvParams) -> str | None:
    return _accepts_blocked(node, p) or ring_fits(p)


def as_depthwise(p: ConvParams) -> DepthwiseParams:
    """A convolution of a one-channel input as the depthwise convolution it is: depth multiplier out_ch,
    the filter [out_ch][fh][fw][1] as [fh][fw][out_ch]."""
    weights = np.ascontiguousarray(p.weights[..., 0].transpose(1, 2, 0))
    return DepthwiseParams(p.batches, p.in_h, p.in_w, 1, p.out_h, p.out_w, p.out_ch, p.filter_h, p.filter_w,
                           p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left, p.input_offset,
                           p.output_offset, p.act_min, p.act_max, weights, p.bias, p.multiplier, p.shift, None)


PLANE_MAX_OUT_CH = 31  # from 32 output channels on, the blocked kernel's paired products are as fast or faster


def _accepts_plane(node: Node, p: ConvParams) -> str | None:
    if p.in_ch != 1 or p.groups != 1:
        return "input channels != 1"
    if p.out_ch > PLANE_MAX_OUT_CH:
        return f"over {PLANE_MAX_OUT_CH} output channels"
    return depthwise_plane.accepts(node, as_depthwise(p))


def _unsigned_bias(p: ConvParams) -> np.ndarray:
    return fold_bias(p.bias, p.weights, p.input_offset - 128)  # windows gathered as x + 128


def _accepts_vnni(node: Node, p: ConvParams) -> str | None:
    if p.groups != 1:
        return "groups != 1"
    if not fits_int32(max_abs(_unsigned_bias(p)) + p.taps * 255 * 128):
        return "unsigned-input accumulator may exceed int32"
    return None


# Packing: each kernel's params struct.

def _args(node: Node, em: Emitter) -> list[str]:
    x = node.inputs[0]
    assert x is not None
    return [em.tensor(x), em.tensor(node.outputs[0])]


def _geometry(p: ConvParams) -> dict[str, int | str]:
    return {"geometry": c_struct({name: getattr(p, name) for name in GEOMETRY})}


def _quant(p: ConvParams) -> dict[str, int | str]:
    return {name: getattr(p, name) for name in QUANT}


def _stage(p: ConvParams, em: Emitter) -> dict[str, int | str]:
    """The vector kernels' output stage: the multipliers, then each shift as a left and a right multiplier."""
    multiplier = em.const(p.multiplier, "multiplier")
    left_mul, right_mul = output_multipliers(p.shift)
    return {"multiplier": multiplier, "left_mul": em.const(left_mul, "left_mul"),
            "right_mul": em.const(right_mul, "right_mul")}


def output_rest(p: ConvParams) -> str:
    """The blocked kernels' out-of-line output stage (mote_output_stage.h): the one that knows RequantShift rows
    only for a layer that has them, so that other projects do not carry their code."""
    return "mote_output_rest_s8" if p.output_rows is None else "mote_output_rest_any_s8"


def _pack_blocked(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    pairs = p.tap_pairs
    packed = to_quads(np.pad(p.weights.reshape(p.out_ch, -1), ((0, 0), (0, 2 * pairs - p.taps))))
    interleaved = pair_words(packed).reshape(ceil_div(p.out_ch, 4), 4, pairs).transpose(0, 2, 1)  # [quad][pair][ch]
    runs, run_start = pair_runs(packed)
    return CCall("mote_conv_blocked_s8", "mote_conv_blocked_params", {
        **_geometry(p), **_quant(p), "taps": p.taps, "pairs": pairs,
        "weights": em.const(np.ascontiguousarray(interleaved), "weights"),
        "bias": em.const(to_quads(p.folded.astype(np.int32)), "folded_bias"),
        "output_stage": quad_output_stage(em, p), "runs": em.const(runs, "pair_runs"),
        "run_start": em.const(run_start, "run_start"), "reverse": int(p.pointwise and p.out_ch > p.in_ch),
        "rest": output_rest(p)}, args)


def _pack_plane(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return replace(depthwise_plane.pack(node, as_depthwise(p), em), func="mote_conv_plane_s8")


def _pack_ring(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    quads, pairs = ceil_div(p.out_ch, 4), p.in_ch // 2
    packed = to_quads(p.weights)
    words = pair_words(packed)  # [oc][fy][fx][jc]
    steps = words.reshape(quads, 4, p.filter_h, 3, pairs).transpose(0, 2, 4, 3, 1).reshape(quads, p.filter_h,
                                                                                           pairs, 12)
    kinds = ring_kinds(packed, p.stride_w)[..., None]  # each step's weights after its kind
    ring = np.concatenate([kinds, steps], axis=-1).astype(np.int32)
    return CCall("mote_conv_ring_s8", "mote_conv_ring_params", {
        **_geometry(p), "width": ring_width(p), **_quant(p),
        "weights": em.const(np.ascontiguousarray(ring), "weights"),
        "bias": em.const(to_quads(p.folded.astype(np.int32)), "folded_bias"),
        "output_stage": quad_output_stage(em, p)}, args)


def _pack_vnni(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    # The output stage's multipliers as the other vector kernels place them (the shifts are what it reads).
    multiplier = _stage(p, em)["multiplier"]
    ch4, oc16 = round_up(p.in_ch, 4), round_up(p.out_ch, 16)
    taps4 = p.filter_h * p.filter_w * ch4
    packed = np.zeros((oc16, p.filter_h, p.filter_w, ch4), np.int8)  # channels padded to whole words
    packed[:p.out_ch, :, :, :p.in_ch] = p.weights
    blocks = packed.reshape(oc16 // 16, 16, taps4 // 4, 4).transpose(0, 2, 1, 3)  # [block][group][lane][4]
    bias = np.zeros(oc16, np.int32)
    bias[:p.out_ch] = _unsigned_bias(p)
    padded_h, padded_w = vnni_plane(p)
    return CCall("mote_conv_vnni_s8", "mote_conv_vnni_params", {
        **_geometry(p), **_quant(p), "in_ch4": ch4, "taps4": taps4, "padded_h": padded_h, "padded_w": padded_w,
        "out_ch16": oc16, "weights": em.const(np.ascontiguousarray(blocks), "weights"),
        "bias": em.const(bias, "unsigned_bias"), "multiplier": multiplier, "shift": em.const(p.shift, "shift")}, args)


def _pack_1x1(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    stage = _stage(p, em)
    return CCall("mote_conv_1x1_s8", "mote_conv_1x1_params", {
        "pixels": p.batches * p.in_h * p.in_w, "in_ch": p.in_ch, "out_ch": p.out_ch,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(p.weights, "weights"), "bias": em.const(p.folded.astype(np.int32), "folded_bias"),
        **stage}, args)


def _pack_im2col(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    stage = _stage(p, em)
    # Each filter as one row of taps, zero-padded to a multiple of 16 like the gathered windows.
    packed = np.zeros((p.out_ch, p.padded_taps), np.int8)
    packed[:, :p.taps] = p.weights.reshape(p.out_ch, -1)
    return CCall("mote_conv_im2col_s8", "mote_conv_im2col_params", {
        **_geometry(p), **_quant(p), "taps": p.taps, "padded_taps": p.padded_taps,
        "weights": em.const(packed, "weights"), "bias": em.const(p.folded.astype(np.int32), "folded_bias"), **stage},
        args)


def _pack_rows(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    stage = _stage(p, em)
    x_lo, x_hi = interior(p.out_w, p.in_w, p.stride_w, p.pad_left, (p.filter_w - 1) * p.dilation_w + 1)
    bias = np.zeros(p.out_ch, np.int32) if p.bias is None else p.bias
    # input_offset * the sum of each filter row: what a window loses with a row in the padding.
    row_sums = p.input_offset * p.weights.astype(np.int64).sum(axis=(2, 3)).T  # [filter_h, out_ch]
    return CCall("mote_conv_rows_s8", "mote_conv_rows_params", {
        **_geometry(p), "interior_x0": x_lo, "interior_x1": x_hi, **_quant(p),
        "weights": em.const(p.weights, "weights"), "bias": em.const(bias, "bias"),
        "folded_bias": em.const(p.folded.astype(np.int32), "folded_bias"),
        "row_sums": em.const(row_sums.astype(np.int32), "row_sums"), **stage}, args)


def _pack_generic(node: Node, p: ConvParams, em: Emitter) -> CCall:
    args = _args(node, em)
    multiplier = em.const(p.multiplier, "multiplier")
    return CCall("mote_conv_s8", "mote_conv_params", {
        **_geometry(p), "filter_in_ch": p.filter_in_ch, **_quant(p), "weights": em.const(p.weights, "weights"),
        "bias": "NULL" if p.bias is None else em.const(p.bias, "bias"), "multiplier": multiplier,
        "shift": em.const(p.shift, "shift")}, args)


def to_quads(a: np.ndarray) -> np.ndarray:
    """Per-output-channel values (axis 0) for the scalar kernels, whose blocks run four channels at a
    time: zeros appended up to a whole set of four (zero filters, bias and multipliers give outputs
    nobody keeps)."""
    a = np.asarray(a)
    return np.pad(a, [(0, -len(a) % 4)] + [(0, 0)] * (a.ndim - 1))


def pair_words(taps: np.ndarray) -> np.ndarray:
    """Taps 2k and 2k + 1 along the last axis as one word, w0 + w1 * 2^16 (mote_pair_dot), int32."""
    taps = np.asarray(taps, np.int64)
    return (taps[..., 0::2] + taps[..., 1::2] * 65536).astype(np.int32)


def quad_output_stage(em: Emitter, p: ConvParams) -> str:
    """The output stage of the scalar kernels: rows up to a whole set of four channels."""
    if p.output_rows is not None:
        return em.const(to_quads(p.output_rows), "output_stage")
    return output_stage(em, to_quads(p.multiplier), to_quads(p.shift), p.output_offset, p.act_min, p.act_max)


def ring_width(p: ConvParams) -> int:
    """mote_conv_ring_s8's plane columns: the input and its left padding, and every column the last
    block of four output pixels reads."""
    return max(p.pad_left + p.in_w, (round_up(p.out_w, 4) - 1) * p.stride_w + 3)


def vnni_plane(p: ConvParams) -> tuple[int, int]:
    """The VNNI kernel's padded image, rows by pixels: every window inside it, those of the missing
    pixels of a row's last block of four too."""
    last_x = round_up(p.out_w, 4) - 1
    return (max(p.pad_top + p.in_h, (p.out_h - 1) * p.stride_h + (p.filter_h - 1) * p.dilation_h + 1),
            max(p.pad_left + p.in_w, last_x * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1))


# Scratch and overlap (mote.memory.arena).

def _vnni_scratch(node: Node, p: ConvParams) -> int:
    padded_h, padded_w = vnni_plane(p)
    return padded_h * padded_w * round_up(p.in_ch, 4)


def _ring_scratch(node: Node, p: ConvParams) -> int:
    return 8 * p.filter_h + 4 * p.filter_h * (p.in_ch // 2) * ring_width(p)


def _blocked_scratch(node: Node, p: ConvParams) -> int:
    return 16 * p.tap_pairs


def _plane_scratch(node: Node, p: ConvParams) -> int:
    return depthwise_plane.scratch(node, as_depthwise(p))


def _ring_overlap(node: Node, p: ConvParams) -> list[tuple[int, Overlap]]:
    """The ring kernel writes a row of outputs once the input rows its windows need are packed: the
    earlier ones are free."""
    if p.batches != 1:
        return []
    in_row, out_row = p.in_w * p.in_ch, p.out_w * p.out_ch
    read = [oy * p.stride_h - p.pad_top + p.filter_h for oy in range(p.out_h)]  # input rows read before row oy
    bounds = [r * in_row - (oy + 1) * out_row for oy, r in enumerate(read) if r < p.in_h]
    return [(0, Overlap(at_most=min(bounds, default=p.out_h * out_row)))]


def blocked_overlap(node: Node, p: ConvParams) -> list[tuple[int, Overlap]]:
    """The blocked kernel at 1x1 and stride 1 writes a block of four pixels once it has read theirs:
    forwards when a pixel's output is no larger than its input, else backwards."""
    if not p.pointwise:
        return []
    pixels, grow = p.batches * p.out_h * p.out_w, p.out_ch - p.in_ch
    if pixels <= 4:
        return [(0, Overlap(at_most=pixels * p.out_ch))]
    return [(0, Overlap(at_least=-4 * grow) if grow > 0 else Overlap(at_most=-4 * grow))]


SCALAR = frozenset({Core.SCALAR})
BLOCKED = Kernel("mote_conv_blocked_s8", SCALAR, _pack_blocked, _accepts_blocked, _blocked_scratch, blocked_overlap,
                 twins=("mote_dot_pairs_4x4_s8",), scratch_why="the gathered windows of a block of four pixels")
KERNELS = (
    Kernel("mote_conv_plane_s8", SCALAR, _pack_plane, _accepts_plane, _plane_scratch,
           scratch_why=depthwise_plane.SCRATCH_WHY),
    Kernel("mote_conv_ring_s8", SCALAR, _pack_ring, _accepts_ring, _ring_scratch, _ring_overlap,
           twins=("mote_dot_ring_s1_4x4_s8", "mote_dot_ring_s2_4x4_s8"),
           scratch_why="a ring of the last input rows, packed as channel pairs"),
    BLOCKED,
    Kernel("mote_conv_vnni_s8", frozenset({Core.VNNI}), _pack_vnni, _accepts_vnni, _vnni_scratch,
           scratch_why="the input plane padded and sign-flipped for AVX-512 VNNI's unsigned-by-signed dot product"),
    Kernel("mote_conv_1x1_s8", ALL_CORES, _pack_1x1, _accepts_1x1),
    Kernel("mote_conv_im2col_s8", ALL_CORES, _pack_im2col, _accepts_im2col),
    Kernel("mote_conv_rows_s8", ALL_CORES, _pack_rows, _accepts_rows),
    Kernel("mote_conv_s8", ALL_CORES, _pack_generic),
)
