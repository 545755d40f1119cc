"""The CPU's half of an op an accelerator ran up to its int32 accumulator: requantize (per
channel), add the output zero point, clamp to the fused activation's range; for an accelerator
without stride, keep only every stride-th position of its stride-1 result on the way. It reads the
accelerator's layout and writes the layout the output's readers want (attrs["layouts"]), with the
zero-point border (attrs["border"]: (top, bottom), (left, right)) that the next accelerator job's
padding needs: the pad is folded in here rather than run as a copy of the whole tensor."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.c_text import c_struct
from mote.ir import Node
from mote.ops.conv_common import requantize
from mote.ops.output_stage import output_stage
from mote.ops.registry import OPS, REQUIRED, CCall, Emitter, OpDef, attr, register

# A 4-D layout -> where rows, columns and channels are among its axes.
AXES = {"NHWC": (1, 2, 3), "NCHW": (2, 3, 1)}


@dataclass(frozen=True, eq=False)
class RequantizeParams:
    in_h: int  # the accelerator's result: [in_h, in_w, channels] positions (batch 1)
    in_w: int
    out_h: int
    out_w: int
    stride_h: int
    stride_w: int
    channels: int
    in_layout: str
    out_layout: str
    border: tuple[tuple[int, int], tuple[int, int]]  # rows (top, bottom), columns (left, right) around the output
    output_offset: int
    act_min: int
    act_max: int
    multiplier: np.ndarray  # int32 [channels]
    shift: np.ndarray  # int32 [channels]


def prepare(node: Node) -> RequantizeParams:
    original = attr(node, "original")
    p = OPS[original.op].prepare(original)
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    in_layout, out_layout = attr(node, "layouts")
    full, (h, w, c) = _hwc(x.shape, in_layout), _hwc(out.shape, out_layout)
    (top, bottom), (left, right) = border = attr(node, "border")
    sh, sw = attr(node, "stride")
    return RequantizeParams(full[0], full[1], h - top - bottom, w - left - right, sh, sw, c, in_layout, out_layout,
                            border, p.output_offset, p.act_min, p.act_max, p.multiplier, p.shift)


def _hwc(shape: tuple[int, ...], layout: str) -> tuple[int, int, int]:
    """Rows, columns, channels: an FC's [batch, channels] is one row of `batch` positions."""
    if len(shape) == 4:
        assert shape[0] == 1, "batch 1"
        rows, cols, channels = AXES[layout]
        return shape[rows], shape[cols], shape[channels]
    rows = 1
    for d in shape[:-1]:
        rows *= d
    return 1, rows, shape[-1]


def _as_hwc(a: np.ndarray, layout: str, h: int, w: int, c: int) -> np.ndarray:
    return a.reshape(h, w, c) if layout == "NHWC" or a.ndim != 4 else a.reshape(c, h, w).transpose(1, 2, 0)


def shape(node: Node) -> list[tuple[int, ...]]:
    return [node.outputs[0].shape]


def reference(node: Node, p: RequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    acc = _as_hwc(inputs[0].astype(np.int64), p.in_layout, p.in_h, p.in_w, p.channels)
    kept = acc[::p.stride_h, ::p.stride_w][:p.out_h, :p.out_w]
    result = requantize(kept, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)
    result = np.pad(result, (*p.border, (0, 0)), constant_values=p.output_offset)
    if p.out_layout == "NCHW" and len(node.outputs[0].shape) == 4:
        result = result.transpose(2, 0, 1)
    return [np.ascontiguousarray(result).reshape(node.outputs[0].shape)]


def steps(layout: str, h: int, w: int, c: int) -> tuple[int, int, int]:
    """Element steps between neighbouring channels, rows and columns of a [h, w, c] tensor in `layout`."""
    return (h * w, w, 1) if layout == "NCHW" else (1, w * c, c)


def emit(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    in_c, in_y, in_x = steps(p.in_layout, p.in_h, p.in_w, p.channels)
    (top, bottom), (left, right) = p.border
    to = steps(p.out_layout, top + p.out_h + bottom, left + p.out_w + right, p.channels)
    h, w, into = p.out_h, p.out_w, (in_c, in_y * p.stride_h, in_x * p.stride_w)
    if into[2] == to[2] == 1 and into[1] == to[1] == w:  # whole planes are contiguous: one row each
        h, w = 1, h * w
    return CCall("mote_requantize_s32_s8", "mote_requantize_s32_params", {
        "out_h": h, "out_w": w, "channels": p.channels, "in": _c_steps(into), "out": _c_steps(to),
        "border": c_struct({"top": top, "bottom": bottom, "left": left, "right": right}),
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "output_stage": output_stage(em, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _c_steps(s: tuple[int, int, int]) -> str:
    return c_struct({"channel": s[0], "row": s[1], "col": s[2]})


OP = register(OpDef("requantize_s32", shape, prepare, reference, emit, attrs={
    "original": REQUIRED, "layouts": ("NHWC", "NHWC"), "border": ((0, 0), (0, 0)), "stride": (1, 1)}))
