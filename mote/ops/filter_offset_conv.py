"""mote_conv_offset_blocked_s8's record: a convolution of a legacy uint8 model whose weights have a zero point
(mote.ops.filter_offset), register-blocked like mote_conv_blocked_s8 and on its inner loop's twin with
per-window terms (mote_dot_pairs_terms_4x4_s8, rv32 assembly).

TFLite's uint8 Conv sums (x - x_zp) * (w_u8 - w_zp) over a window's in-bounds taps. The weight
w_u8 - w_zp = w8 + filter_offset (w8 = w_u8 - 128, the int8 weights; filter_offset = 128 - w_zp) spans up to
[-255, 255]; the compiler splits it as v + s, one sum scale s for each output channel, chosen so that every v
lies in [-127, 128] (where the paired products of int8 inputs fit 16 bits) and as many groups of four taps as
possible share their roundings (mote.ops.pair_groups). Then a window sums (x - x_zp) * v, an ordinary
convolution, plus s * S with S = sum (x - x_zp), one number per output pixel shared by all its output channels.
Padding taps hold x_zp, so they add nothing to either sum. The kernel sums each window's raw taps as it gathers
them; the compile-time bias holds what does not depend on the input.

The same split serves int8 layers (no zero point) whose weights reach -128, which the int8 blocked kernels'
paired products do not take: on a scalar core they run as mote_conv_blocked_wide_s8, next to those kernels in
the int8 table (mote.ops.conv2d).
"""

from __future__ import annotations

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import Node
from mote.ops.conv2d_kernels import output_rest, pair_words, quad_output_stage, to_quads
from mote.ops.conv2d_params import GEOMETRY, ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.pair_groups import fits, pair_runs
from mote.ops.registry import CCall, Core, Emitter, Kernel

V_MIN, V_MAX = -127, 128  # the split weights' range: a pair's products of int8 inputs stay in [-2^15, 2^15)


def pairs(p: ConvParams) -> int:
    """A window's tap pairs, even: taps rounded up to a multiple of 4, halved."""
    return p.tap_pairs


def _taps(p: ConvParams) -> np.ndarray:
    """int64 [out_ch][taps]: the weights as TFLite's uint8 kernel took them, w - w_zp."""
    return p.weights.reshape(p.out_ch, -1).astype(np.int64) + p.filter_offset


def _packed(v: np.ndarray, p: ConvParams) -> np.ndarray:
    """int64 [quads * 4][2 * pairs]: v padded with zero taps and zero filters, in packed order."""
    return to_quads(np.pad(v, ((0, 0), (0, 2 * pairs(p) - p.taps))))


def sum_scales(p: ConvParams) -> np.ndarray:
    """int64 [out_ch]: each channel's split, w - w_zp - s in [V_MIN, V_MAX] for each of its weights; of the values
    allowed, the one (of the weights' mean, median, 0 and the two ends) under which the most of the channel's
    groups of four taps fit 16 bits (mote.ops.pair_groups: a group shares its roundings when the four channels
    of its set all fit)."""
    w = _taps(p)
    lo, hi = w.max(axis=1) - V_MAX, w.min(axis=1) - V_MIN
    candidates = np.stack([np.rint(w.mean(axis=1)), np.median(w, axis=1).astype(np.int64), np.zeros(len(w)), lo, hi])
    candidates = np.clip(candidates.astype(np.int64), lo, hi)  # [5, out_ch]
    padded = [np.pad(w - c[:, None], ((0, 0), (0, 2 * pairs(p) - p.taps))) for c in candidates]
    fitting = np.stack([fits(v.reshape(len(w), -1, 4)).sum(axis=1) for v in padded])  # [5, out_ch]
    return candidates[fitting.argmax(axis=0), np.arange(len(w))]


def offset_bias(p: ConvParams, s: np.ndarray) -> np.ndarray:
    """int64 [out_ch]: the bias (or 0) + input_offset * (the sum of the channel's split weights + taps * s):
    the accumulator of a window whose raw taps sum to 0."""
    bias = np.zeros(p.out_ch, np.int64) if p.bias is None else p.bias.astype(np.int64)
    return bias + p.input_offset * ((_taps(p) - s[:, None]).sum(axis=1) + p.taps * s)


def _bounded(p: ConvParams) -> str | None:
    if p.groups != 1:
        return "groups != 1"
    s = sum_scales(p)
    # The bias, then s * the window's raw taps (each |x| <= 128) and the paired products.
    if not fits_int32(max_abs(np.abs(offset_bias(p, s)) + p.taps * 128 * (128 + np.abs(s)))):
        return "accumulator may exceed int32"
    return None


def _accepts_wide(node: Node, p: ConvParams) -> str | None:
    """An int8 layer (weights without a zero point) whose weights reach -128, which the int8 blocked kernels'
    paired products do not take (as TFLite's int8 weights never do, but a legacy uint8 layer's with zero point
    128, or an ONNX model's, may): split the same way, its weights w = v + s."""
    if p.filter_offset:
        return "weights with a zero point (mote_conv_offset_blocked_s8's)"
    if int(p.weights.min(initial=0)) > -128:
        return "weights in [-127, 127] (the int8 blocked kernels')"
    return _bounded(p)


def accepts(node: Node, p: ConvParams) -> str | None:
    return "weights without a zero point" if not p.filter_offset else _bounded(p)


def _pack(func: str, node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    n, s = pairs(p), sum_scales(p)
    packed = _packed(_taps(p) - s[:, None], p)
    interleaved = pair_words(packed).reshape(ceil_div(p.out_ch, 4), 4, n).transpose(0, 2, 1)  # [quad][pair][ch]
    runs, run_start = pair_runs(packed)
    return CCall(func, "mote_conv_offset_blocked_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
        "taps": p.taps, "pairs": n, "input_offset": p.input_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(np.ascontiguousarray(interleaved), "weights"),
        "bias": em.const(_bias_and_scales(p, s), "offset_bias"),
        "output_stage": quad_output_stage(em, p), "runs": em.const(runs, "pair_runs"),
        "run_start": em.const(run_start, "run_start"), "rest": output_rest(p)}, args)


def _bias_and_scales(p: ConvParams, s: np.ndarray) -> np.ndarray:
    """int32 [quads][8]: each four channels' biases, then their sum scales."""
    both = np.stack([to_quads(offset_bias(p, s)).reshape(-1, 4), to_quads(s).reshape(-1, 4)], axis=1)
    return np.ascontiguousarray(both.reshape(-1, 8)).astype(np.int32)


def scratch_bytes(node: Node, p: ConvParams) -> int:
    return 16 * pairs(p)


def pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return _pack("mote_conv_offset_blocked_s8", node, p, em)


def _pack_wide(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return _pack("mote_conv_blocked_wide_s8", node, p, em)


KERNEL = Kernel("mote_conv_offset_blocked_s8", frozenset(Core), pack, accepts, scratch_bytes,
                twins=("mote_dot_pairs_terms_4x4_s8",), scratch_why="four windows packed in tap pairs")
# Where the int8 blocked kernels decline on a scalar core (elsewhere the vector kernels take such layers).
WIDE_KERNEL = Kernel("mote_conv_blocked_wide_s8", frozenset({Core.SCALAR}), _pack_wide, _accepts_wide,
                     scratch_bytes, twins=("mote_dot_pairs_terms_4x4_s8",),
                     scratch_why="four windows packed in tap pairs")
