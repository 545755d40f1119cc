"""The float32 kernels register-blocked for scalar cores (Core.SCALAR), records that lead the float rows of
the conv2d and fully_connected tables (mote.ops.conv2d_f32 and mote.ops.fully_connected_f32 have the
layers' parameters and TFLite Micro's order):

  mote_conv_blocked_f32            an ungrouped convolution with finite weights: four pixels' windows
                                   gathered from the input zero-padded against four filters, sixteen
                                   accumulators in registers;
  mote_depthwise_conv_blocked_f32  depth multiplier 1: four pixels of a row by four channels, read in place
                                   where the windows lie inside the input across;
  mote_fully_connected_blocked_f32 eight weight rows at a time (a last four alone).

Blocking only chooses which outputs are summed together: each output adds its own products from 0 in
the reference order, then its bias, then clamps (-ffp-contract=off everywhere), so the bits are TFLite
Micro's. A padding tap adds 0 * w, which is +-0 for a finite w and leaves the sum as it was (a sum that
starts at +0 is never -0); a non-finite weight would make it NaN, so such layers keep mote_conv_f32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.conv2d_f32 import FloatWindowParams, geometry_fields
from mote.ops.float_common import c_float
from mote.ops.fully_connected_f32 import FullyConnectedF32Params
from mote.ops.registry import CCall, Core, Emitter, Kernel

SHORT_ROW = 8  # filter rows of fewer taps (filter_w * in_ch) are gathered from a zero-padded copy


def padded_plane(p: Any) -> tuple[int, int]:
    """The blocked convolutions' zero-padded image, rows by columns: the input at (pad_top, pad_left) and
    every window inside it; (0, 0) where filter rows are long enough to gather from the image itself (the
    copy costs about what it saves, in arena bytes as large as the input) or the padding is too large."""
    if p.filter_w * p.in_ch >= SHORT_ROW:
        return 0, 0
    h = max(p.pad_top + p.in_h, (p.out_h - 1) * p.stride_h + (p.filter_h - 1) * p.dilation_h + 1)
    w = max(p.pad_left + p.in_w, (p.out_w - 1) * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1)
    # Not where the padding dwarfs the input (a large dilation or stride): that arena is not worth it.
    return (h, w) if h * w <= 4 * p.in_h * p.in_w + 256 else (0, 0)


def _quads(rows: np.ndarray) -> np.ndarray:
    """Rows [n, depth] as [ceil(n / 4)][depth][4], zero rows appended."""
    return interleave(rows.astype(np.float32), 4)


def interleave(rows: np.ndarray, block: int) -> np.ndarray:
    """Rows [n, depth] rounded up to a multiple of four with zero rows, in blocks of `block` rows
    [depth][block], a last block of four where `block` (8) does not divide them: flat, in that order."""
    n, depth = rows.shape
    padded = np.zeros((ceil_div(n, 4) * 4, depth), rows.dtype)
    padded[:n] = rows
    blocks, start = [], 0
    while start < len(padded):
        size = block if len(padded) - start >= block else 4
        blocks.append(padded[start:start + size].T.reshape(-1))
        start += size
    return np.concatenate(blocks)


def _args(node: Node, em: Emitter) -> list[str]:
    x = node.inputs[0]
    assert x is not None
    return [em.tensor(x), em.tensor(node.outputs[0])]


def _taps(p: FloatWindowParams) -> int:
    return p.filter_h * p.filter_w * p.filter_in_ch


def _accepts_conv(node: Node, p: FloatWindowParams) -> str | None:
    if p.filter_in_ch != p.in_ch:
        return "groups != 1"
    return None if bool(np.isfinite(p.weights).all()) else "a weight is not finite"


def _pack_conv(node: Node, p: FloatWindowParams, em: Emitter) -> CCall:
    weights = _quads(np.asarray(p.weights, np.float32).reshape(p.out_ch, -1))  # OHWI rows: [quad][tap][4]
    return CCall("mote_conv_blocked_f32", "mote_conv_blocked_f32_params", {
        **geometry_fields(p), "taps": _taps(p), "plane_h": padded_plane(p)[0], "plane_w": padded_plane(p)[1],
        "weights": em.const(weights, "weights"),
        "bias": em.const(p.bias, "bias")}, _args(node, em))


def _conv_scratch(node: Node, p: FloatWindowParams) -> int:
    plane_h, plane_w = padded_plane(p)
    return 4 * (plane_h * plane_w * p.in_ch + 4 * _taps(p))


def _pack_fully_connected(node: Node, p: FullyConnectedF32Params, em: Emitter) -> CCall:
    return CCall("mote_fully_connected_blocked_f32", "mote_fully_connected_blocked_f32_params", {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "act_min": c_float(p.act_min), "act_max": c_float(p.act_max),
        "weights": em.const(interleave(np.asarray(p.weights, np.float32), 8), "weights"),
        "bias": em.const(p.bias, "bias")}, _args(node, em))


def _accepts_depthwise(node: Node, p: FloatWindowParams) -> str | None:
    return None if p.depth_multiplier == 1 else "depth multiplier != 1"


def _pack_depthwise(node: Node, p: FloatWindowParams, em: Emitter) -> CCall:
    weights = np.ascontiguousarray(np.asarray(p.weights, np.float32).reshape(p.filter_h, p.filter_w, p.out_ch))
    return CCall("mote_depthwise_conv_blocked_f32", "mote_depthwise_conv_blocked_f32_params", {
        **geometry_fields(p), "weights": em.const(weights, "weights"), "bias": em.const(p.bias, "bias")},
        _args(node, em))


_SCALAR = frozenset({Core.SCALAR})
_FLOAT32 = frozenset({DType.FLOAT32})
CONV_KERNEL = Kernel("mote_conv_blocked_f32", _SCALAR, _pack_conv, _accepts_conv, _conv_scratch, dtypes=_FLOAT32,
                     scratch_why="a block of four pixels' windows (for short filter rows, the input zero-padded too)")
DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_blocked_f32", _SCALAR, _pack_depthwise, _accepts_depthwise,
                          dtypes=_FLOAT32)
FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_blocked_f32", _SCALAR, _pack_fully_connected, dtypes=_FLOAT32)
