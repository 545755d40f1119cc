"""SUB: int8 a - b with numpy broadcasting and a fused activation.

The same arithmetic as ADD (see add.py) with the scaled inputs subtracted, except for one detail of
TFLite Micro's prepare: SUB computes the three real multipliers in float32, not double
    twice_max = 2 * max(s_a, s_b);  a: s_a / twice_max;  out: twice_max / (2^20 * s_out)   (all float)
and only then widens them to double for QuantizeMultiplierSmallerThanOneExp.
"""

from __future__ import annotations

import numpy as np

from mote.ir import Node
from mote.ops.add import AddParams, add_sub_call, add_sub_params, finish, overlap, scaled_inputs
from mote.ops.broadcast import output_shape
from mote.ops.registry import CCall, Emitter, OpDef, register


def sub_multipliers(s_a: float, s_b: float, s_out: float) -> tuple[float, float, float]:
    f32 = np.float32
    twice_max = f32(2) * max(f32(s_a), f32(s_b))
    return (float(f32(s_a) / twice_max), float(f32(s_b) / twice_max),
            float(twice_max / (f32(1 << 20) * f32(s_out))))


def prepare(node: Node) -> AddParams:
    return add_sub_params(node, sub_multipliers)


def reference(node: Node, p: AddParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = scaled_inputs(node, p, inputs)
    return [finish(p, a - b)]


def emit(node: Node, p: AddParams, em: Emitter) -> CCall:
    return add_sub_call(node, p, em, b_sign=-1)


OP = register(OpDef("sub", output_shape, prepare, reference, emit, tflite=("SUB",), overlap=overlap))
