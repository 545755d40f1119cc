"""The CPU's half of an op an accelerator ran up to its int32 accumulator: requantize (per
channel), add the output zero point, clamp to the fused activation's range; for an accelerator
without stride, keep only every stride-th position of its stride-1 result on the way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.conv2d import output_multipliers, requantize
from mote.ops.registry import OPS, CCall, Emitter, OpDef, register


@dataclass(frozen=True, eq=False)
class RequantizeParams:
    in_h: int  # the accelerator's result: [in_h, in_w, channels] positions (batch 1)
    in_w: int
    out_h: int
    out_w: int
    stride_h: int
    stride_w: int
    channels: int
    output_offset: int
    act_min: int
    act_max: int
    multiplier: np.ndarray  # int32 [channels]
    shift: np.ndarray  # int32 [channels]


def prepare(node: Node) -> RequantizeParams:
    original = node.attrs["original"]
    p = OPS[original.op].prepare(original)
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    full, shape = _hwc(x.shape), _hwc(out.shape)
    sh, sw = node.attrs.get("stride", (1, 1))
    return RequantizeParams(full[0], full[1], shape[0], shape[1], sh, sw, shape[2], p.output_offset, p.act_min,
                            p.act_max, p.multiplier, p.shift)


def _hwc(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """Rows, columns, channels: an FC's [batch, channels] is one row of `batch` positions."""
    if len(shape) == 4:
        assert shape[0] == 1, "batch 1"
        return shape[1], shape[2], shape[3]
    rows = 1
    for d in shape[:-1]:
        rows *= d
    return 1, rows, shape[-1]


def shape(node: Node) -> list[tuple[int, ...]]:
    return [node.outputs[0].shape]


def reference(node: Node, p: RequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    acc = inputs[0].astype(np.int64).reshape(p.in_h, p.in_w, p.channels)
    kept = acc[::p.stride_h, ::p.stride_w][:p.out_h, :p.out_w]
    result = requantize(kept, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)
    return [result.reshape(node.outputs[0].shape)]


def emit(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    left_mul, right_mul = output_multipliers(p.shift)
    return CCall("mote_requantize_s32_s8", "mote_requantize_s32_params", {
        "in_w": p.in_w, "out_h": p.out_h, "out_w": p.out_w, "stride_h": p.stride_h, "stride_w": p.stride_w,
        "channels": p.channels, "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "multiplier": em.const(p.multiplier, "multiplier"),
        "left_mul": em.const(left_mul, "left_mul"), "right_mul": em.const(right_mul, "right_mul")},
        [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("requantize_s32", shape, prepare, reference, emit))
