"""The 16x8 kernels register-blocked for scalar cores (Core.SCALAR: rv32imc), records that lead the 16x8
rows of the conv2d and fully_connected tables (mote.ops.weighted_16x8 has the layers' parameters):

  mote_conv_blocked_s16            an ungrouped convolution: four pixels' windows gathered, zero padded,
                                   against four filters, sixteen accumulators in registers;
  mote_depthwise_conv_blocked_s16  depth multiplier 1: four pixels of a row by four channels, read in place
                                   where the windows lie inside the input across;
  mote_fully_connected_blocked_s16 zero input and filter offsets: eight weight rows at a time (a last four
                                   alone).

All take layers whose partial sums fit int32 (`narrow`) with an int64 bias or none, and requantize
through one table row per channel (mote.ops.stage_16x8): the same integers as TFLite Micro's int64
requantization, most clamped outputs without a multiply.
"""

from __future__ import annotations

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.blocked_f32 import interleave, padded_plane
from mote.ops.conv2d_params import GEOMETRY
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.ops.stage_16x8 import stage_table, sum_bounds
from mote.ops.weighted_16x8 import Wide


def stage_rows(w: Wide, weights: np.ndarray, offset: int, channels: int) -> np.ndarray:
    """The output stage's table of a layer its kernel accepted."""
    stage = _stage(w, weights, offset, channels)
    assert stage is not None
    return stage


def _stage(w: Wide, weights: np.ndarray, offset: int, channels: int) -> np.ndarray | None:
    p = w.layer
    return stage_table(p.multiplier, p.shift, p.bias, sum_bounds(weights), offset, p.act_min, p.act_max, channels)


def _common(w: Wide) -> str | None:
    if not w.narrow:
        return "a partial sum may leave int32"
    return None if w.acc64 else "int32 bias: the int32 requantization"


def accepts_conv(node: Node, w: Wide) -> str | None:
    p = w.layer
    if node.op != "conv2d" or p.groups != 1:
        return "groups != 1"
    if reason := _common(w):
        return reason
    return None if _stage(w, p.weights, 0, p.out_ch) is not None else "requantization out of the stage's range"


def _pack_conv(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    quads = ceil_div(p.out_ch, 4)
    padded = np.zeros((quads * 4, p.taps), np.int8)
    padded[:p.out_ch] = p.weights.reshape(p.out_ch, -1)
    weights = np.ascontiguousarray(padded.reshape(quads, 4, p.taps).transpose(0, 2, 1))  # [quad][tap][4]
    stage = _stage(w, p.weights, 0, p.out_ch)
    assert stage is not None
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_conv_blocked_s16", "mote_conv_blocked_s16_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "taps": p.taps,
        "plane_h": padded_plane(p)[0], "plane_w": padded_plane(p)[1], "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(weights, "weights"),
        "stage": em.const(stage, "output_stage")}, [em.tensor(x), em.tensor(node.outputs[0])])


def _conv_scratch(node: Node, w: Wide) -> int:
    p = w.layer
    plane_h, plane_w = padded_plane(p)
    return 2 * (plane_h * plane_w * p.in_ch + 4 * p.taps)


def _accepts_depthwise(node: Node, w: Wide) -> str | None:
    p = w.layer
    if p.out_ch != p.in_ch:
        return "depth multiplier != 1"
    if reason := _common(w):
        return reason
    return None if _stage(w, p.weights, 0, p.out_ch) is not None else "requantization out of the stage's range"


def _pack_depthwise(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    weights = np.ascontiguousarray(p.weights[..., 0].transpose(1, 2, 0))  # [fh][fw][out]
    stage = _stage(w, p.weights, 0, p.out_ch)
    assert stage is not None
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_depthwise_conv_blocked_s16", "mote_depthwise_conv_blocked_s16_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "act_min": p.act_min,
        "act_max": p.act_max, "weights": em.const(weights, "weights"), "stage": em.const(stage, "output_stage")},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _accepts_fully_connected(node: Node, w: Wide) -> str | None:
    p = w.layer
    if p.input_offset or p.filter_offset:
        return "input or filter zero point"
    if reason := _common(w):
        return reason
    return None if _stage(w, p.weights, p.output_offset, p.out_depth) is not None else \
        "requantization out of the stage's range"


def _pack_fully_connected(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    weights = interleave(p.weights.astype(np.int8), 8)
    stage = _stage(w, p.weights, p.output_offset, p.out_depth)
    assert stage is not None
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_fully_connected_blocked_s16", "mote_fully_connected_blocked_s16_params", {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(weights, "weights"), "stage": em.const(stage, "output_stage")},
        [em.tensor(x), em.tensor(node.outputs[0])])


_SCALAR = frozenset({Core.SCALAR})
_INT16 = frozenset({DType.INT16})
CONV_KERNEL = Kernel("mote_conv_blocked_s16", _SCALAR, _pack_conv, accepts_conv, _conv_scratch, dtypes=_INT16,
                     scratch_why="a block of four pixels' windows (for short filter rows, the input zero-padded too)")
DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_blocked_s16", _SCALAR, _pack_depthwise, _accepts_depthwise,
                          dtypes=_INT16)
FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_blocked_s16", _SCALAR, _pack_fully_connected,
                                _accepts_fully_connected, dtypes=_INT16)
