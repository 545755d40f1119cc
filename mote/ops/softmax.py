"""SOFTMAX: int8 in, int8 out (scale 1/256, zero point -128) or int16 out (scale 1/65536, zero point
-32768), over the last axis, in gemmlowp fixed point.

Bit-exact with TFLite Micro's reference_ops::Softmax for int8. Per row, with d = x - max(row):
  - entries with d < diff_min count as exp = 0 and output -128;
  - the others: e = exp_on_negative_values(srdhm(d << input_left_shift, input_multiplier)) read as
    Q5.26 (kScaledDiffIntegerBits = 5), a Q0 result; the row sum accumulates e rescaled to Q12.19;
  - out = clamp(rdbypot(srdhm(1/sum, e), num_bits_over_unit + 31 - bits) + min) to the output type (of
    `bits` bits, minimum `min`), where 1/sum is TFLite's GetReciprocal (normalize the sum by its headroom,
    then gemmlowp's 1 / (1 + x)).
Compile time (PreprocessSoftmaxScaling, CalculateInputRadius, all in double):
    real = min(beta * s_in * 2^26, 2^31 - 1)  ->  QuantizeMultiplierGreaterThanOne (requires real > 1)
    diff_min = -floor(31 * 2^26 / 2^input_left_shift)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import activation_f32 as f32
from mote.ops import checks, softmax_s16
from mote.ops.add import quantized_int8
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.quant import round_half_away, rounding_divide_by_pot

SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


@dataclass(frozen=True)
class SoftmaxParams:
    rows: int  # product of all but the last dimension
    depth: int  # the last dimension, normalized over
    input_multiplier: int  # Q31
    input_left_shift: int  # >= 1
    diff_min: int  # <= 0: entries further below the row maximum output the type's minimum
    output_bits: int = 8  # 8 or 16


def prepare(node: Node) -> SoftmaxParams:
    x, out = quantized_int8(node, node.inputs[0]), node.outputs[0]
    _check_output(node)
    if not x.shape:
        raise UnsupportedError(f"node {node.name!r} (softmax): the input must have at least one dimension")
    beta = float(np.float32(attr(node, "beta")))
    real = min(beta * x.scale * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    if not real > 1.0:
        raise UnsupportedError(f"node {node.name!r} (softmax): beta * input scale = {beta * x.scale:g} is too small "
                               "for TFLite Micro's int8 softmax (needs > 2^-26)")
    multiplier, shift = greater_than_one_multiplier(real)
    radius = math.floor(((1 << SCALED_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)) / 2.0**shift)
    # Shift 31 (beta * s_in >= 32) leaves radius 0: only the row maxima (d = 0) reach the multiply, where
    # any shift gives 0. Storing 30 keeps the C kernel's 1 << shift defined.
    depth = x.shape[-1]
    return SoftmaxParams(x.size // depth if depth else 0, depth, multiplier, min(shift, 30), -radius,
                         8 * out.dtype.itemsize)


def _check_output(node: Node) -> None:
    """TFLite Micro's demands on the output: int8 with scale exactly 1/256 and zero point -128, or int16
    with zero point -32768 and scale 1/65536 within 0.1%."""
    out = node.outputs[0]
    checks.dtype(node, out, "output", DType.INT8, DType.INT16)
    checks.quantized(node, out, "output")
    float_scale = float(np.float32(out.scale))
    if out.dtype is DType.INT8 and (out.zero_point != -128 or float_scale != 1.0 / 256):
        raise checks.fail(node, "TFLite Micro requires an int8 output with scale 1/256 and zero point -128, got "
                                f"scale {out.scale:g}, zero point {out.zero_point}")
    if out.dtype is DType.INT16 and (out.zero_point != -32768 or abs(float_scale - 2**-16) > 0.001 * 2**-16):
        raise checks.fail(node, "TFLite Micro requires an int16 output of an int8 softmax to have scale 1/65536 "
                                f"and zero point -32768, got scale {out.scale:g}, zero point {out.zero_point}")


def greater_than_one_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier for 1 < real < 2^31: (Q31 multiplier, shift in 1..31)."""
    q, shift = math.frexp(real)
    q_fixed = round_half_away(q * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed, shift = q_fixed // 2, shift + 1
    return q_fixed, shift


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def reference(node: Node, p: SoftmaxParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], dtype=np.int64).reshape(p.rows, p.depth)
    diff = x - x.max(axis=1, keepdims=True)
    used = diff >= p.diff_min
    # Unused entries get any harmless value; they are masked out below.
    scaled = fp.mul(np.where(used, diff, 0) << p.input_left_shift, p.input_multiplier)
    exps = fp.exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS)
    terms = np.where(used, fp.rescale(exps, 0, ACCUMULATION_INTEGER_BITS), 0)
    sums = fp.wrap32(terms.sum(axis=1))
    inverse, num_bits_over_unit = fp.reciprocal(sums, ACCUMULATION_INTEGER_BITS)
    exponent = (num_bits_over_unit + 31 - p.output_bits)[:, None]
    probs = rounding_divide_by_pot(fp.mul(inverse[:, None], exps), exponent)
    low, high = -(1 << (p.output_bits - 1)), (1 << (p.output_bits - 1)) - 1
    out = np.where(used, np.clip(probs + low, low, high), low)
    return [out.astype(node.outputs[0].dtype.np).reshape(inputs[0].shape)]


def emit(node: Node, p: SoftmaxParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields = {k: v for k, v in vars(p).items() if k != "output_bits"}
    func = "mote_softmax_s8" if p.output_bits == 8 else "mote_softmax_s8_s16"
    return CCall(func, "mote_softmax_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    checks.input_count(node, 1)
    checks.int8_activation(node, node.inputs[0], "input")
    _check_output(node)
    beta = attr(node, "beta")
    if not isinstance(beta, (int, float)) or not math.isfinite(beta) or beta <= 0:
        raise checks.fail(node, f"beta {beta!r} must be a finite positive number")


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: softmax_s16.ROW, DType.INT8: (check, prepare, reference, emit),
            DType.FLOAT32: (f32.check, f32.softmax_prepare, f32.softmax_reference, f32.softmax_emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("softmax", shape, _prepare, _reference, _emit, tflite=("SOFTMAX",), check=_check,
                    attrs={"beta": 1.0}, dtypes=tuple(BY_DTYPE)))
