"""SQUARED_DIFFERENCE on integers, with numpy broadcasting, as TFLite Micro computes it:

- int8 and int16 (zero points 0): each input offset and shifted left (7 bits for int8, none for int16),
  rescaled to twice the larger input scale (MultiplyByQuantizedMultiplierSmallerThanOneExp), the difference
  squared in int32, rescaled by (2 max s)^2 / (2^(2 shift) s_out) and offset, clamped to the type;
- int32: (a - b)^2 on the raw values, wrapping as two's complement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.common import smaller_than_one
from mote.ops.registry import CCall, Emitter
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

LEFT_SHIFT = {DType.INT8: 7, DType.INT16: 0}
TYPES = {DType.INT8: 0, DType.INT16: 1, DType.INT32: 2}  # the kernel's `type` field


@dataclass(frozen=True)
class SquaredDifferenceParams:
    bcast: Broadcast
    left_shift: int = 0
    a_offset: int = 0
    a_multiplier: int = 0
    a_shift: int = 0
    b_offset: int = 0
    b_multiplier: int = 0
    b_shift: int = 0
    out_offset: int = 0
    out_multiplier: int = 0
    out_shift: int = 0
    act_min: int = 0
    act_max: int = 0


def check(node: Node) -> None:
    checks.input_count(node, 2)
    a, b = checks.present(node, 0, "first input"), checks.present(node, 1, "second input")
    checks.dtype(node, a, "first input", *TYPES)
    checks.dtype(node, b, "second input", a.dtype)
    out = node.outputs[0]
    checks.dtype(node, out, "output", a.dtype)
    output_shape(node)
    if a.dtype is DType.INT32:
        return
    for t, role in ((a, "first input"), (b, "second input"), (out, "output")):
        checks.quantized(node, t, role)
        if a.dtype is DType.INT16 and t.zero_point != 0:
            raise checks.fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro "
                                    "requires 0")


def prepare(node: Node) -> SquaredDifferenceParams:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert a is not None and b is not None
    if a.dtype is DType.INT32:
        return SquaredDifferenceParams(plan_broadcast(node))
    shift = LEFT_SHIFT[a.dtype]
    twice = 2.0 * max(float(np.float32(a.scale)), float(np.float32(b.scale)))
    info = np.iinfo(out.dtype.np)
    return SquaredDifferenceParams(
        plan_broadcast(node), shift,
        -a.zero_point, *smaller_than_one(node, float(np.float32(a.scale)) / twice, "first input"),
        -b.zero_point, *smaller_than_one(node, float(np.float32(b.scale)) / twice, "second input"), out.zero_point,
        *quantize_multiplier(twice * twice / ((1 << (2 * shift)) * float(np.float32(out.scale)))), int(info.min),
        int(info.max))


def reference(node: Node, p: SquaredDifferenceParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = node.outputs[0]
    a, b = broadcast_inputs(node, inputs)
    if out.dtype is DType.INT32:
        d = (a - b + 2**31) % 2**32 - 2**31
        return [((d * d + 2**31) % 2**32 - 2**31).astype(np.int32)]
    sa = multiply_by_quantized_multiplier((a + p.a_offset) << p.left_shift, p.a_multiplier, p.a_shift)
    sb = multiply_by_quantized_multiplier((b + p.b_offset) << p.left_shift, p.b_multiplier, p.b_shift)
    value = multiply_by_quantized_multiplier((sa - sb) * (sa - sb), p.out_multiplier, p.out_shift) + p.out_offset
    return [np.clip(value, p.act_min, p.act_max).astype(out.dtype.np)]


def emit(node: Node, p: SquaredDifferenceParams, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {**p.bcast.fields(em), "type": TYPES[a.dtype],
                                    **{k: v for k, v in vars(p).items() if k != "bcast"}}
    return CCall("mote_squared_difference_int", "mote_squared_difference_int_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)
