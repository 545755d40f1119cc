"""The CPU's half of an op an accelerator ran up to its int32 accumulator: requantize (per
channel), add the output zero point, clamp to the fused activation's range."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.conv2d import requantize
from mote.ops.registry import OPS, CCall, Emitter, OpDef, register


@dataclass(frozen=True, eq=False)
class RequantizeParams:
    size: int
    channels: int
    output_offset: int
    act_min: int
    act_max: int
    multiplier: np.ndarray  # int32 [channels]
    shift: np.ndarray  # int32 [channels]


def prepare(node: Node) -> RequantizeParams:
    original = node.attrs["original"]
    p = OPS[original.op].prepare(original)
    out = node.outputs[0]
    return RequantizeParams(out.size, out.shape[-1], p.output_offset, p.act_min, p.act_max, p.multiplier, p.shift)


def shape(node: Node) -> list[tuple[int, ...]]:
    return [node.outputs[0].shape]


def reference(node: Node, p: RequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [requantize(inputs[0].astype(np.int64), p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)]


def emit(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_requantize_s32_s8", "mote_requantize_s32_params", {
        "size": p.size, "channels": p.channels, "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "multiplier": em.const(p.multiplier, "multiplier"),
        "shift": em.const(p.shift, "shift")}, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("requantize_s32", shape, prepare, reference, emit))
