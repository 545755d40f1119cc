"""The kernels for Armv6-M cores (Core.ARMV6M: Cortex-M0+), which have a 32 x 32 -> 32-bit multiply (MULS) but
no DSP extension, no long multiply and no shifted operands: two products per multiply on pair words
(mote_armv6m.h), records that lead the int8 rows of the conv2d, depthwise_conv2d and fully_connected tables.

Layout: each row of weights (an output channel's filter in HWC tap order, or a fully connected row) is
zero-padded to whole iterations of the inner loop (MOTE_ARMV6M_UNROLL pair words of two taps) and every two
taps (w0, w1) stored as the pair word w1 + w0 * 2^16, rows interleaved by fours ([quad][pair][4 rows]), the
way the 1x4 register block walks them. A pair's two products stay below 2^15 in magnitude only for weights in
[-127, 127]: a layer with a weight of -128 (or one that a filter offset moves out of that range) keeps the
portable kernels. Depthwise layers take a strip of one channel's rows as int32 words (mote_depthwise_conv_armv6m_s8.h)
and int32 weights in the strip's column order. The output stage is the one-multiply stage in 16-bit halves
(mote.ops.armv6m_stage) for the channels that have its constants, mote_dsp.h's 32-bit one (its exactness checked
as for the DSP kernels) for the others.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.armv6m_stage import single_rows
from mote.ops.conv2d_params import GEOMETRY, QUANT, ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.dsp_kernels import dsp_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel

ARMV6M = frozenset({Core.ARMV6M})
INT8 = frozenset({DType.INT8})
UNROLL = 4  # MOTE_ARMV6M_UNROLL: pair words per inner-loop iteration
BLOCK = 4  # rows per register block


def padded_pairs(depth: int) -> int:
    """The pair words of a row of `depth` taps, rounded up to whole inner-loop iterations."""
    return ceil_div(ceil_div(depth, 2), UNROLL) * UNROLL


def pair_words(rows: np.ndarray) -> np.ndarray:
    """int rows [n, depth] (each in [-127, 127]) as uint32 pair words [ceil(n / 4)][pairs][4]: w[2k + 1] + w[2k]
    * 2^16 (the module docstring's layout), rows and depth zero-padded."""
    n, depth = rows.shape
    pairs = padded_pairs(depth)
    padded = np.zeros((ceil_div(n, BLOCK) * BLOCK, 2 * pairs), np.int64)
    padded[:n, :depth] = rows
    words = (padded[:, 1::2] + padded[:, 0::2] * 65536) % 2**32  # [rows][pairs]
    blocked = words.reshape(-1, BLOCK, pairs).transpose(0, 2, 1)
    return np.ascontiguousarray(blocked).reshape(-1).astype(np.uint32)


def pair_reason(weights: np.ndarray) -> str | None:
    """Why weights cannot be taken two products per multiply (None: they can)."""
    if weights.size and (int(weights.min()) < -127 or int(weights.max()) > 127):
        return "a weight outside [-127, 127] (a pair of products could reach 2^15)"
    return None


def bias_and_reach(op: str, p: Any) -> tuple[np.ndarray, np.ndarray]:
    """A layer's bias as its kernel starts from, and per channel the largest magnitude of the products it adds:
    the accumulators lie in bias +- reach."""
    if op == "conv2d":
        return p.folded, 128 * np.abs(p.weights.reshape(p.out_ch, -1).astype(np.int64)).sum(axis=1)
    if op == "fully_connected":
        return p.folded_bias, 128 * np.abs(_fc_weights(p)).sum(axis=1)
    return _dw_bias(p), _dw_reach(p)


def _stages(p: Any, bias: np.ndarray, reach: np.ndarray, bound: int, em: Emitter) -> dict[str, int | str]:
    """The params' bias, single and stage fields: each channel's one-multiply stage where it has one (its constant
    in its bias), mote_dsp.h's rows for the others; the bias zero-padded to whole blocks of BLOCK channels."""
    rows = dsp_stage(p.multiplier, p.shift, bound)
    assert rows is not None, "the record's accept test checks the output stage"
    single, folded = single_rows(p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max, bias, reach)
    folded = np.concatenate([folded, np.zeros(-len(folded) % BLOCK, np.int32)])
    return {"bias": em.const(folded, "folded_bias"), "single": em.const(single.reshape(-1), "single_stage"),
            "stage": em.const(rows.reshape(-1), "dsp_stage")}


# conv2d -------------------------------------------------------------------------------------------------

def _conv_bound(p: ConvParams) -> int:
    return int(max_abs(p.folded)) + p.taps * 128 * 127


def _conv_accepts(node: Node, p: ConvParams) -> str | None:
    if p.groups != 1:
        return "groups != 1"
    if p.filter_offset:
        return "weights with a zero point"
    if reason := pair_reason(p.weights):
        return reason
    if not fits_int32(_conv_bound(p)):
        return "accumulator may exceed int32"
    if dsp_stage(p.multiplier, p.shift, _conv_bound(p)) is None:
        return "the 32-bit output stage may overflow"
    return None


def conv_segments(p: ConvParams) -> tuple[int, int]:
    """The window's segments of contiguous input taps (mote_conv_armv6m_s8.h): how many, and their taps."""
    if p.dilation_w == 1:
        return p.filter_h, p.filter_w * p.in_ch
    return p.filter_h * p.filter_w, p.in_ch


def conv_rows(p: ConvParams) -> np.ndarray:
    """Each channel's taps segment by segment, each segment zero-padded to whole pairs: int64 [out_ch, depth]."""
    count, taps = conv_segments(p)
    rows = np.zeros((p.out_ch, count, 2 * ceil_div(taps, 2)), np.int64)
    rows[:, :, :taps] = p.weights.reshape(p.out_ch, count, taps)
    return rows.reshape(p.out_ch, -1)


def _conv_scratch(node: Node, p: ConvParams) -> int:
    return 6 * padded_pairs(conv_rows(p).shape[1]) + 4  # MOTE_CONV_ARMV6M_SCRATCH in mote_conv_armv6m_s8.h


def _conv_pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    rows, (_, taps) = conv_rows(p), conv_segments(p)
    return CCall("mote_conv_armv6m_s8", "mote_conv_armv6m_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
        "seg_taps": taps, "seg_pairs": ceil_div(taps, 2), "pairs": padded_pairs(rows.shape[1]),
        **{name: getattr(p, name) for name in QUANT}, "weights": em.const(pair_words(rows), "pair_weights"),
        **_stages(p, *bias_and_reach("conv2d", p), _conv_bound(p), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


CONV_KERNEL = Kernel("mote_conv_armv6m_s8", ARMV6M, _conv_pack, _conv_accepts, _conv_scratch, dtypes=INT8,
                     scratch_why="one output pixel's window, as int8 taps and as pair words")


# fully_connected ----------------------------------------------------------------------------------------

# `p`: mote.ops.fully_connected.FullyConnectedParams (that module imports this one).

def _fc_weights(p: Any) -> np.ndarray:
    return p.weights.astype(np.int64) + p.filter_offset


def _fc_bound(p: Any) -> int:
    return int(max_abs(p.folded_bias)) + p.accum_depth * 128 * 127


def _fc_accepts(node: Node, p: Any) -> str | None:
    if reason := pair_reason(_fc_weights(p)):
        return reason
    if not fits_int32(_fc_bound(p)):
        return "accumulator may exceed int32"
    if dsp_stage(p.multiplier, p.shift, _fc_bound(p)) is None:
        return "the 32-bit output stage may overflow"
    return None


def _fc_pack(node: Node, p: Any, em: Emitter) -> CCall:
    """The weights with the filter offset added, so the kernel adds no offset term."""
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_fully_connected_armv6m_s8", "mote_fully_connected_armv6m_params", {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "pairs": padded_pairs(p.accum_depth), "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "weights": em.const(pair_words(_fc_weights(p)), "pair_weights"),
        **_stages(p, *bias_and_reach("fully_connected", p), _fc_bound(p), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _fc_scratch(node: Node, p: Any) -> int:
    return 4 * padded_pairs(p.accum_depth) + 4  # MOTE_FULLY_CONNECTED_ARMV6M_SCRATCH


FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_armv6m_s8", ARMV6M, _fc_pack, _fc_accepts, _fc_scratch,
                                dtypes=INT8, scratch_why="the input row as pair words")


# depthwise_conv2d ---------------------------------------------------------------------------------------

STRIP_ROWS = 13  # MOTE_DEPTHWISE_ARMV6M_ROWS


def _dw_strip(p: DepthwiseParams) -> tuple[int, int]:
    """The strip's rows and columns (mote_depthwise_conv_armv6m_s8.h)."""
    rows = max(STRIP_ROWS, (p.filter_h - 1) * p.dilation_h + 1)
    return rows, (p.out_w - 1) * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1


def _dw_bias(p: DepthwiseParams) -> np.ndarray:
    """The bias plus input_offset times the sum of the channel's weights (the strip holds the inputs as they are)."""
    bias = np.zeros(p.out_ch, np.int64) if p.bias is None else p.bias.astype(np.int64)
    return bias + p.input_offset * p.weights.astype(np.int64).reshape(-1, p.out_ch).sum(axis=0)


def _dw_bound(p: DepthwiseParams) -> int:
    """The products of the inputs and the weights, plus the folded bias."""
    return int(max_abs(_dw_bias(p))) + p.filter_h * p.filter_w * 128 * 128


def _dw_reach(p: DepthwiseParams) -> np.ndarray:
    """Per channel, the largest magnitude of its products' sum: inputs within [-128, 127]."""
    return np.abs(p.weights.astype(np.int64)).reshape(-1, p.out_ch).sum(axis=0) * 128


def _dw_accepts(node: Node, p: DepthwiseParams) -> str | None:
    if p.filter_offset:
        return "weights with a zero point"
    if not fits_int32(_dw_bound(p)):
        return "accumulator may exceed int32"
    if dsp_stage(p.multiplier, p.shift, _dw_bound(p)) is None:
        return "the 32-bit output stage may overflow"
    return None


def _dw_scratch(node: Node, p: DepthwiseParams) -> int:
    rows, cols = _dw_strip(p)
    return 4 * rows * cols + 4  # MOTE_DEPTHWISE_CONV_ARMV6M_SCRATCH


def _dw_pack(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    rows, cols = _dw_strip(p)
    fields = {name: getattr(p, name) for name in ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w",
                                                   "depth_multiplier", "filter_h", "filter_w", "stride_h", "stride_w",
                                                   "dilation_h", "dilation_w", "pad_top", "pad_left")}
    weights = np.ascontiguousarray(p.weights.astype(np.int32).transpose(2, 1, 0)).reshape(-1)  # [out_ch][fw][fh]
    return CCall("mote_depthwise_conv_armv6m_s8", "mote_depthwise_conv_armv6m_params", {
        **fields, "rows": rows, "cols": cols, **{name: getattr(p, name) for name in QUANT},
        "weights": em.const(weights, "strip_weights"),
        **_stages(p, *bias_and_reach("depthwise_conv2d", p), _dw_bound(p), em)},
        [em.tensor(x), em.tensor(node.outputs[0])])


DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_armv6m_s8", ARMV6M, _dw_pack, _dw_accepts, _dw_scratch, dtypes=INT8,
                          scratch_why="a strip of one channel's input rows as int32, column by column")
