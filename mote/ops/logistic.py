"""LOGISTIC: int8 sigmoid in gemmlowp fixed point; tanh.py shares the input scaling.

Bit-exact with TFLite Micro's reference_integer_ops::Logistic for int8. With d = x - input_zero_point:
    d <= -radius -> -128;  d >= radius -> 127;  otherwise
    out = clamp(rdbypot(logistic(MultiplyByQuantizedMultiplier(d, multiplier, shift) as Q4.27), 23) - 128)
Compile time (in double): frexp(s_in * 2^27) = (q, shift), multiplier = round(q * 2^31),
    radius = floor(15 * 2^27 / 2^shift)                          (CalculateInputRadius(4, shift, 31))
TFLite Micro requires the output zero point to be -128 and assumes, without checking, that the output
scale is 1/256; mote does the same (the output scale is not used).

A layer of at least LUT_MIN_SIZE values (a transformer's SiLU gate) runs as a 256-entry table instead
(mote_lut_s8): the reference above evaluated at every int8 value at compile time, so the bytes are the same,
for a load per value instead of the fixed-point exponential.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import activation_f32 as f32
from mote.ops import sigmoid_s16
from mote.ops.add import quantized_int8
from mote.ops.checks import unary_int8
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier, round_half_away, rounding_divide_by_pot

INPUT_INTEGER_BITS = 4
LUT_MIN_SIZE = 256  # values; below it the table's 256 bytes of flash cost more than they save


@dataclass(frozen=True)
class SigmoidParams:
    size: int
    input_zero_point: int
    input_range_radius: int  # |x - zero point| >= radius saturates
    input_multiplier: int  # Q31
    input_left_shift: int  # 0..62; beyond 30 the radius is 0 and every input saturates


def sigmoid_params(node: Node) -> SigmoidParams:
    """The input scaling shared by logistic and tanh (TFLite Micro's int8 prepare of both)."""
    x = quantized_int8(node, node.inputs[0])
    quantized_int8(node, node.outputs[0])
    q, shift = math.frexp(x.scale * (1 << (31 - INPUT_INTEGER_BITS)))
    if not 0 <= shift <= 62:  # TFLite's radius computes 1 << shift in 64 bits
        raise UnsupportedError(f"node {node.name!r} ({node.op}): input scale {x.scale:g} is outside the range "
                               "TFLite Micro's int8 kernel handles")
    multiplier = round_half_away(q * (1 << 31))
    assert multiplier < 1 << 31  # a float32 scale has too few mantissa bits to round up to 2^31
    max_input = ((1 << INPUT_INTEGER_BITS) - 1) * (1 << (31 - INPUT_INTEGER_BITS))
    radius = math.floor(max_input / 2.0**shift)
    return SigmoidParams(x.size, x.zero_point, radius, multiplier, shift)


def prepare(node: Node) -> SigmoidParams:
    out = node.outputs[0]
    if out.quant is not None and out.zero_point != -128:
        raise UnsupportedError(f"node {node.name!r} (logistic): TFLite Micro requires the int8 output zero point "
                               f"to be -128 (scale 1/256), got {out.zero_point}")
    return sigmoid_params(node)


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def input_in_q4(p: SigmoidParams, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Q4.27 inputs, mask of saturated-low, mask of saturated-high); saturated entries hold 0."""
    d = np.asarray(x, dtype=np.int64) - p.input_zero_point
    low, high = d <= -p.input_range_radius, d >= p.input_range_radius
    inside = np.where(low | high, 0, d)
    return multiply_by_quantized_multiplier(inside, p.input_multiplier, p.input_left_shift), low, high


def reference(node: Node, p: SigmoidParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    q4, low, high = input_in_q4(p, inputs[0])
    out = np.clip(rounding_divide_by_pot(fp.logistic(q4, INPUT_INTEGER_BITS), 31 - 8) - 128, -128, 127)
    return [np.where(low, -128, np.where(high, 127, out)).astype(np.int8)]


def sigmoid_call(func: str, node: Node, p: SigmoidParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall(func, "mote_sigmoid_params", dict(vars(p)), [em.tensor(x), em.tensor(node.outputs[0])])


def emit(node: Node, p: SigmoidParams, em: Emitter) -> CCall:
    if p.size < LUT_MIN_SIZE:
        return sigmoid_call("mote_logistic_s8", node, p, em)
    values = np.arange(-128, 128).astype(np.int8)
    table = np.zeros(256, np.int8)
    table[values.view(np.uint8)] = reference(node, p, [values])[0]
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_lut_s8", "mote_lut_s8_params", {"size": p.size, "table": em.const(table, "logistic_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: sigmoid_s16.ROW, DType.INT8: (unary_int8, prepare, reference, emit),
            DType.FLOAT32: (f32.check, f32.prepare, f32.logistic_reference, f32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("logistic", shape, _prepare, _reference, _emit, tflite=("LOGISTIC",), check=_check,
                    dtypes=tuple(BY_DTYPE)))
