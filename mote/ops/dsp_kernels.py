"""The kernels for cores with the Armv7E-M / Armv8-M DSP extension (Core.DSP: Cortex-M4, M7, M33): dual
16-bit multiply-accumulates (SMLAD) on weights prepared at compile time in the layout the inner loops read
(mote_dsp.h), records that lead the int8 rows of the conv2d, depthwise_conv2d and fully_connected tables.

Layout: each row of weights (an output channel's filter in HWC tap order, or a fully connected row) is
zero-padded to whole groups of four and every group (w0, w1, w2, w3) stored as the int16 pairs (w0, w2),
(w1, w3): what SXTB16 makes of four int8 activations without a rotation and with one. Rows are then
interleaved the way the register block walks them: conv2d by pairs of channels ([pair][group][2][2
words]), fully_connected by fours ([quad][group][4][2 words]). depthwise_conv2d's weights pair channels
instead: (w_c0, w_c2), (w_c1, w_c3) per tap and group of four channels ([group][tap][2 words]). The int16
weights take twice the flash of int8 ones and save the two widening instructions per word that CMSIS-NN
spends on them. Every layer's output stage is the 32-bit one of mote_dsp.h, its exactness checked here.

The activation x activation product (batch_matmul, matmul_rqs: dsp_matmul_kernel) has no weights to prepare:
its kernel widens A's rows once per batch and B's columns once per pair of columns at run time, each less its
zero point, into the same layout, and keeps the output stage of the blocked kernel it shares parameters with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.conv2d_params import GEOMETRY, QUANT, ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.quant import multiply_by_quantized_multiplier

DSP = frozenset({Core.DSP})
INT8 = frozenset({DType.INT8})


def dsp_words(rows: np.ndarray, block: int) -> np.ndarray:
    """int8 rows [n, depth] as uint32 words [ceil(n / block)][groups][block][2] (the module docstring's
    layout), rows and depth zero-padded."""
    n, depth = rows.shape
    groups = ceil_div(depth, 4)
    padded = np.zeros((ceil_div(n, block) * block, groups * 4), np.int16)
    padded[:n, :depth] = rows
    pairs = padded.reshape(-1, groups, 4)[:, :, [0, 2, 1, 3]]  # (w0, w2), (w1, w3)
    blocked = pairs.reshape(-1, block, groups, 4).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(blocked).astype("<i2").view("<u4").reshape(-1).astype(np.uint32)


def dsp_stage(multiplier: np.ndarray, shift: np.ndarray, bound: int | np.ndarray) -> np.ndarray | None:
    """The channels' output-stage rows of mote_dsp.h (int32 [n, 5]: multiplier, left + 1, round, right, neg_mask)
    for accumulators of magnitude at most `bound` (one for all channels, or each channel's), or None when a step
    of mote_dsp_requantize could overflow 32 bits for such an accumulator (the layer then takes a kernel with the
    64-bit output stage): the accumulator shifted left by left + 1 (the doubling of the high multiply, so that it
    is one SMMULR), or y + round."""
    multiplier, shift, reach = np.broadcast_arrays(np.atleast_1d(np.asarray(multiplier, np.int64)),
                                                   np.atleast_1d(np.asarray(shift, np.int64)),
                                                   np.atleast_1d(np.asarray(bound, np.int64)))
    left, right = np.maximum(shift, 0) + 1, np.maximum(-shift, 0)
    if (right > 31).any() or (left > 31).any():
        return None
    shifted = reach << left
    y = (shifted * multiplier + (1 << 31)) >> 32
    rounding = np.where(right > 0, np.left_shift(1, np.maximum(right - 1, 0)), 0)
    if (shifted >= 1 << 31).any() or (y + 1 + rounding >= 1 << 31).any():
        return None
    rows = np.stack([multiplier, left, rounding, right, -(right > 0).astype(np.int64)], axis=1)
    return rows.astype(np.int32)


def _stage_field(rows: np.ndarray, em: Emitter) -> dict[str, int | str]:
    return {"stage": em.const(rows.reshape(-1), "dsp_stage")}


# conv2d -------------------------------------------------------------------------------------------------

def reach(bias: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's accumulator bound for int8 inputs (|x| <= 128): |bias| + 128 * sum |w| (int64 [rows]), what
    the output stage of mote_dsp.h must take without overflow; tighter than depth * 128 * 128."""
    rows = np.asarray(rows, np.int64).reshape(len(rows), -1)
    return np.abs(np.asarray(bias, np.int64)) + 128 * np.abs(rows).sum(axis=1)


def stage_rows(multiplier: np.ndarray, shift: np.ndarray, bias: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
    """dsp_stage for output channels whose accumulators are bias[c] + sum_k x_k * rows[c, k] (int8 x). A channel
    whose weights are all zero (a pruned one) always has its bias as accumulator: its row gives that output
    as a constant (multiplier 0, right 0, the requantized bias as `round`, clamped to +-2^16, which clamps to
    the int8 range alike) instead of risking the shift of a huge bias."""
    rows = np.asarray(rows, np.int64).reshape(len(rows), -1)
    bias = np.asarray(bias, np.int64)
    multiplier, shift = (np.broadcast_to(np.atleast_1d(np.asarray(v, np.int64)), bias.shape) for v in (multiplier,
                                                                                                      shift))
    pruned = ~rows.any(axis=1)
    live = dsp_stage(multiplier[~pruned], shift[~pruned], reach(bias[~pruned], rows[~pruned]))
    if live is None:
        return None
    out = np.zeros((bias.size, 5), np.int32)
    out[~pruned] = live
    value = multiply_by_quantized_multiplier(bias[pruned], multiplier[pruned], shift[pruned])
    out[pruned, 2] = np.clip(value, -(1 << 16), 1 << 16)
    return out


def _conv_stage(p: ConvParams) -> np.ndarray | None:
    return stage_rows(p.multiplier, p.shift, p.folded, p.weights.reshape(p.out_ch, -1))


def _conv_bound(p: ConvParams) -> int:
    return int(max_abs(p.folded)) + p.taps * 128 * 128


def _conv_accepts(node: Node, p: ConvParams) -> str | None:
    if p.groups != 1:
        return "groups != 1"
    if p.filter_offset:
        return "weights with a zero point"
    if not fits_int32(_conv_bound(p)):
        return "accumulator may exceed int32"
    if _conv_stage(p) is None:
        return "the 32-bit output stage may overflow"
    return None


def _conv_scratch(node: Node, p: ConvParams) -> int:
    return 20 * ceil_div(p.taps, 4) + 4  # MOTE_CONV_DSP_SCRATCH in mote_conv_dsp_s8.h


def _conv_pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    words = dsp_words(p.weights.reshape(p.out_ch, -1), 2)
    return CCall("mote_conv_dsp_s8", "mote_conv_dsp_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
        "taps": p.taps, "groups": ceil_div(p.taps, 4), **{name: getattr(p, name) for name in QUANT},
        "weights": em.const(words, "dsp_weights"), "bias": em.const(p.folded.astype(np.int32), "folded_bias"),
        **_stage_field(_exact_stage(_conv_stage(p)), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _exact_stage(rows: np.ndarray | None) -> np.ndarray:
    assert rows is not None, "the record's accept test checks the output stage"
    return rows


CONV_KERNEL = Kernel("mote_conv_dsp_s8", DSP, _conv_pack, _conv_accepts, _conv_scratch, dtypes=INT8,
                     scratch_why="two output pixels' windows widened to int16 pairs, and one gathered window")


# fully_connected ----------------------------------------------------------------------------------------

# `p`: mote.ops.fully_connected.FullyConnectedParams (that module imports this one).

def _fc_pack(node: Node, p: Any, em: Emitter) -> CCall:
    """The weights with the filter offset added (int16 has room), so the kernel adds no offset term."""
    x = node.inputs[0]
    assert x is not None
    words = dsp_words(p.weights.astype(np.int16) + p.filter_offset, 4)
    return CCall("mote_fully_connected_dsp_s8", "mote_fully_connected_dsp_params", {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "groups": ceil_div(p.accum_depth, 4), "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "weights": em.const(words, "dsp_weights"), "bias": em.const(p.folded_bias, "folded_bias"),
        **_stage_field(_exact_stage(_fc_stage(p)), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _fc_stage(p: Any) -> np.ndarray | None:
    return stage_rows(p.multiplier, p.shift, p.folded_bias, p.weights.astype(np.int64) + p.filter_offset)


def _fc_bound(p: Any) -> int:
    return int(max_abs(p.folded_bias)) + p.accum_depth * 128 * (128 + abs(p.filter_offset))


def _fc_accepts(node: Node, p: Any) -> str | None:
    if not fits_int32(_fc_bound(p)):
        return "accumulator may exceed int32"
    if _fc_stage(p) is None:
        return "the 32-bit output stage may overflow"
    return None


def _fc_scratch(node: Node, p: Any) -> int:
    return 8 * ceil_div(p.accum_depth, 4) + 8  # MOTE_FULLY_CONNECTED_DSP_SCRATCH


FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_dsp_s8", DSP, _fc_pack, _fc_accepts, _fc_scratch,
                                dtypes=INT8, scratch_why="the input row widened to int16 pairs")


# depthwise_conv2d ---------------------------------------------------------------------------------------

def _dw_stage(p: DepthwiseParams) -> np.ndarray | None:
    assert p.folded_bias is not None
    return stage_rows(p.multiplier, p.shift, p.folded_bias, p.weights.reshape(9, -1).T)


def _dw_accepts(node: Node, p: DepthwiseParams) -> str | None:
    if (p.filter_h, p.filter_w, p.depth_multiplier, p.dilation_h, p.dilation_w) != (3, 3, 1, 1, 1):
        return "not 3x3, depth multiplier 1, undilated"
    if p.in_ch % 4:
        return "channels not a multiple of 4"
    if p.filter_offset or p.folded_bias is None:
        return "weights with a zero point, or an accumulator that may exceed int32"
    if _dw_stage(p) is None:
        return "the 32-bit output stage may overflow"
    return None


def _dw_pack(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None and p.folded_bias is not None
    taps = p.weights.reshape(9, p.in_ch // 4, 4).transpose(1, 0, 2)[:, :, [0, 2, 1, 3]]  # [group][tap][4]
    words = np.ascontiguousarray(taps).astype("<i2").view("<u4").reshape(-1).astype(np.uint32)
    fields = {name: getattr(p, name) for name in ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "stride_h",
                                                   "stride_w", "pad_top", "pad_left", "input_offset",
                                                   "output_offset", "act_min", "act_max")}
    return CCall("mote_depthwise_conv_dsp_s8", "mote_depthwise_conv_dsp_params", {
        **fields, "weights": em.const(words, "dsp_weights"),
        "folded_bias": em.const(p.folded_bias.astype(np.int32), "folded_bias"),
        **_stage_field(_exact_stage(_dw_stage(p)), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_dsp_s8", DSP, _dw_pack, _dw_accepts, lambda node, p: p.in_ch,
                          dtypes=INT8, scratch_why="a row of the input zero point for the taps outside the input")


# batch_matmul, matmul_rqs: two activations ------------------------------------------------------------------

# `geometry(params)`: the layer's mote.ops.batch_matmul.BatchMatMulParams (that module imports this one).

def dsp_matmul_kernel(func: str, pack: Callable[[Node, Any, Emitter], CCall],
                      geometry: Callable[[Any], Any]) -> Kernel:
    """The record of an int8 product of two activations on a DSP core (mote_batch_matmul_dsp_body.h). The sums
    wrap modulo 2^32 as TFLite's and Deeploy's do, so any depth is exact; a single row declines (the blocked
    kernel reads B as it is, where widening it would cost as much as the products)."""
    def accepts(node: Node, p: Any) -> str | None:
        return "one row: widening B would cost as much as its products" if geometry(p).rows < 2 else None

    def scratch(node: Node, p: Any) -> int:
        q = geometry(p)
        return 8 * (ceil_div(q.rows, 2) * 2 + 2) * ceil_div(q.depth, 4) + 8  # MOTE_BATCH_MATMUL_DSP_SCRATCH

    return Kernel(func, DSP, pack, accepts, scratch, dtypes=INT8,
                  scratch_why="A's rows and two of B's columns widened to int16 pairs")
