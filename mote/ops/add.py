"""ADD: int8 a + b with numpy broadcasting and a fused activation.

Bit-exact with TFLite Micro's int8 add (reference_integer_ops::AddFunc): both inputs are brought to a
common scale, twice the larger input scale, with 20 bits of headroom:
    a' = rdbypot(srdhm((a - a_zp) << 20, a_multiplier), -a_shift)      (same for b)
    out = clamp(rdbypot(srdhm(a' + b', out_multiplier), -out_shift) + out_zp, act_min, act_max)
where every multiplier comes from QuantizeMultiplierSmallerThanOneExp of
    a: s_a / (2 max(s_a, s_b)),  b: s_b / (2 max(s_a, s_b)),  out: 2 max(s_a, s_b) / (2^20 s_out),
computed in double (the tflite-micro interpreter does so for SUB too: a float32 quotient of the scales,
as some TFLite Micro sources write it, differs on exact halves). sub.py shares everything here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import arith_s16, binary_f32, binary_s32
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.checks import binary_int8
from mote.ops.common import activation_range, smaller_than_one
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Emitter, OpDef, Overlap, attr, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier

LEFT_SHIFT = 20  # TFLite's headroom for int8 add/sub: 255 << 20 still leaves room for the sum


@dataclass(frozen=True)
class AddParams:
    bcast: Broadcast
    left_shift: int
    a_offset: int  # -a zero point
    a_multiplier: int
    a_shift: int  # <= 0 (right shift)
    b_offset: int
    b_multiplier: int
    b_shift: int
    out_offset: int  # output zero point
    out_multiplier: int
    out_shift: int
    act_min: int
    act_max: int


def quantized_int8(node: Node, t: Tensor | None) -> Tensor:
    """`t`, checked to be a per-tensor quantized int8 tensor."""
    if t is None or t.dtype is not DType.INT8 or t.quant is None:
        what = "missing" if t is None else f"{t.dtype.value}{'' if t.quant else ', unquantized'}"
        raise UnsupportedError(f"node {node.name!r} ({node.op}): needs quantized int8 tensors, got {what} "
                               f"tensor {t.name if t is not None else ''!r}")
    if len(t.quant.scale) != 1:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): tensor {t.name!r} is quantized per channel; "
                               "this op needs per-tensor quantization")
    return t


# Computes (a, b, out) real multipliers from (s_a, s_b, s_out); add uses double, sub float32 arithmetic.
RealMultipliers = Callable[[float, float, float], tuple[float, float, float]]


def add_multipliers(s_a: float, s_b: float, s_out: float) -> tuple[float, float, float]:
    twice_max = 2.0 * max(s_a, s_b)
    return s_a / twice_max, s_b / twice_max, twice_max / ((1 << LEFT_SHIFT) * s_out)


def add_sub_params(node: Node, reals: RealMultipliers) -> AddParams:
    a, b = quantized_int8(node, node.inputs[0]), quantized_int8(node, node.inputs[1])
    out = quantized_int8(node, node.outputs[0])
    real_a, real_b, real_out = reals(a.scale, b.scale, out.scale)
    a_mult, a_shift = smaller_than_one(node, real_a, "first input")
    b_mult, b_shift = smaller_than_one(node, real_b, "second input")
    out_mult, out_shift = smaller_than_one(node, real_out, "output")
    act_min, act_max = activation_range(attr(node, "activation"), out)
    return AddParams(plan_broadcast(node), LEFT_SHIFT, -a.zero_point, a_mult, a_shift, -b.zero_point, b_mult,
                     b_shift, out.zero_point, out_mult, out_shift, act_min, act_max)


def prepare(node: Node) -> AddParams:
    return add_sub_params(node, add_multipliers)


def _common_scale(x: np.ndarray, offset: int, p: AddParams, multiplier: int, shift: int) -> np.ndarray:
    return multiply_by_quantized_multiplier((x + offset) << p.left_shift, multiplier, shift)


def scaled_inputs(node: Node, p: AddParams, inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Both inputs on the common scale (int32 values), broadcast to the output shape."""
    a, b = broadcast_inputs(node, inputs)
    return (_common_scale(a, p.a_offset, p, p.a_multiplier, p.a_shift),
            _common_scale(b, p.b_offset, p, p.b_multiplier, p.b_shift))


def finish(p: AddParams, raw: np.ndarray) -> np.ndarray:
    out = multiply_by_quantized_multiplier(raw, p.out_multiplier, p.out_shift) + p.out_offset
    return np.clip(out, p.act_min, p.act_max).astype(np.int8)


def reference(node: Node, p: AddParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = scaled_inputs(node, p, inputs)
    return [finish(p, a + b)]


def scale_tables(p: AddParams, b_sign: int) -> tuple[np.ndarray, np.ndarray]:
    """Each input's common-scale value for every int8 value (index x + 128), the second one times
    b_sign: the kernel looks them up instead of requantizing both inputs per element, and a
    subtraction is an addition of the negated second table."""
    x = np.arange(-128, 128, dtype=np.int64)
    a = _common_scale(x, p.a_offset, p, p.a_multiplier, p.a_shift)
    b = b_sign * _common_scale(x, p.b_offset, p, p.b_multiplier, p.b_shift)
    return a.astype(np.int32), b.astype(np.int32)


def add_sub_call(node: Node, p: AddParams, em: Emitter, b_sign: int) -> CCall:
    """mote_add_s8 computes both ADD (b_sign 1) and SUB (b_sign -1)."""
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    a_table, b_table = scale_tables(p, b_sign)
    fields = p.bcast.fields(em)
    fields.update(a_table=em.const(a_table, "a_scaled"), b_table=em.const(b_table, "b_scaled"),
                  output_stage=output_stage(em, p.out_multiplier, p.out_shift, p.out_offset, p.act_min, p.act_max),
                  out_offset=p.out_offset, act_min=p.act_min, act_max=p.act_max)
    return CCall("mote_add_s8", "mote_add_params", fields, [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def emit(node: Node, p: AddParams, em: Emitter) -> CCall:
    return add_sub_call(node, p, em, b_sign=1)


def overlap(node: Node, p: AddParams) -> list[tuple[int, Overlap]]:
    """mote_add_s8 writes each output after reading its inputs: an input of the output's shape may
    share its bytes from the same offset on (d <= 0)."""
    out = node.outputs[0].shape
    return [(k, Overlap(at_most=0)) for k, t in enumerate(node.inputs) if t is not None and t.shape == out]


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: arith_s16.ROW, DType.INT8: (binary_int8, prepare, reference, emit),
            DType.FLOAT32: (binary_f32.check, binary_f32.prepare, binary_f32.reference, binary_f32.emit),
            DType.INT32: (binary_s32.check, binary_s32.prepare, binary_s32.reference, binary_s32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("add", output_shape, _prepare, _reference, _emit, tflite=("ADD",), overlap=overlap, check=_check,
                    attrs={"activation": "NONE"}, dtypes=tuple(BY_DTYPE)))
