"""MUL: int8 a * b with numpy broadcasting and a fused activation.

Bit-exact with TFLite Micro's int8 mul (reference_integer_ops::MulElementwise):
    out = clamp(MultiplyByQuantizedMultiplier((a - a_zp) * (b - b_zp), multiplier, shift) + out_zp,
                act_min, act_max)
with (multiplier, shift) = QuantizeMultiplier(double(s_a) * double(s_b) / double(s_out)); the shift
may be positive (a left shift done in int32, which wraps only for absurd scale ratios). In a legacy uint8
model (attribute legacy_uint8), the ratio is computed as TensorFlow Lite's uint8 Mul computes it: in float.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import arith_s16, binary_f32, binary_s32
from mote.ops.add import quantized_int8
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.checks import binary_int8
from mote.ops.common import activation_range
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier


@dataclass(frozen=True)
class MulParams:
    bcast: Broadcast
    a_offset: int  # -a zero point
    b_offset: int  # -b zero point
    out_offset: int  # output zero point
    out_multiplier: int
    out_shift: int  # > 0: left
    act_min: int
    act_max: int


def prepare(node: Node) -> MulParams:
    a, b = quantized_int8(node, node.inputs[0]), quantized_int8(node, node.inputs[1])
    out = quantized_int8(node, node.outputs[0])
    if node.attrs.get("legacy_uint8"):  # TensorFlow Lite's uint8 Mul: the scales multiplied in float
        real = np.float32(a.scale) * np.float32(b.scale) / np.float32(out.scale)
        multiplier, shift = quantize_multiplier(float(real))
    else:
        multiplier, shift = quantize_multiplier(a.scale * b.scale / out.scale)
    act_min, act_max = activation_range(attr(node, "activation"), out)
    return MulParams(plan_broadcast(node), -a.zero_point, -b.zero_point, out.zero_point, multiplier, shift,
                     act_min, act_max)


def reference(node: Node, p: MulParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = broadcast_inputs(node, inputs)
    product = (a + p.a_offset) * (b + p.b_offset)
    out = multiply_by_quantized_multiplier(product, p.out_multiplier, p.out_shift) + p.out_offset
    return [np.clip(out, p.act_min, p.act_max).astype(np.int8)]


def emit(node: Node, p: MulParams, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields = p.bcast.fields(em)
    fields.update({k: v for k, v in vars(p).items() if k != "bcast"})
    fields["output_stage"] = output_stage(em, np.array([p.out_multiplier]), np.array([p.out_shift]), p.out_offset,
                                          p.act_min, p.act_max)
    return CCall("mote_mul_s8", "mote_mul_params", fields, [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: arith_s16.ROW, DType.INT8: (binary_int8, prepare, reference, emit),
            DType.FLOAT32: (binary_f32.check, binary_f32.prepare, binary_f32.reference, binary_f32.emit),
            DType.INT32: (binary_s32.check, binary_s32.prepare, binary_s32.reference, binary_s32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("mul", output_shape, _prepare, _reference, _emit, tflite=("MUL",), check=_check,
                    attrs={"activation": "NONE"}, dtypes=tuple(BY_DTYPE)))
