"""LOG_SOFTMAX on int8 (over the last axis; the output scale 16/256, zero point 127), in gemmlowp fixed point.

Bit-exact with TFLite Micro's reference_ops::LogSoftmaxQuantized. Per row, with d = x - max(row) <= 0:
  - q5(d) = MultiplyByQuantizedMultiplier(d, input_multiplier, input_left_shift), d read as Q5.26;
  - entries with d >= diff_min add exp_on_negative_values(q5(d)) rescaled to Q12.19 into the row's sum;
  - log_sum = log_x_for_x_greater_than_or_equal_to_1(sum as Q12) as Q5.26;
  - adjusted = max(diff_min - 1, MultiplyByQuantizedMultiplier(log_sum + INT32_MIN, reverse_multiplier,
    reverse_shift)): the least d whose q5(d) - log_sum still fits int32;
  - out = d > adjusted ? clamp(RoundingDivideByPOT(q5(d) - log_sum, 22) + 127) : -128.
Compile time (PreprocessLogSoftmaxScalingExp with beta 1, in double):
    real = min(s_in * 2^26, 2^31 - 1)  ->  QuantizeMultiplierGreaterThanOne: (input_multiplier, left shift)
    reverse = 2^(31 - left shift) / input_multiplier  ->  QuantizeMultiplierSmallerThanOneExp
    diff_min = -floor(31 * 2^26 / 2^left shift)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter
from mote.ops.softmax import ACCUMULATION_INTEGER_BITS, SCALED_DIFF_INTEGER_BITS, greater_than_one_multiplier
from mote.quant import INT32_MIN, multiply_by_quantized_multiplier, quantize_multiplier, rounding_divide_by_pot

OUTPUT_INTEGER_BITS = 4
OUTPUT_SCALE, OUTPUT_ZERO_POINT = 16 / 256, 127  # what TFLite Micro requires of the output


@dataclass(frozen=True)
class LogSoftmaxS8Params:
    rows: int
    depth: int
    input_multiplier: int  # Q31
    input_left_shift: int  # 1..30 (31 stored as 30: only d = 0 is then multiplied, to 0 either way)
    reverse_multiplier: int  # Q31
    reverse_shift: int  # <= 0
    diff_min: int  # <= 0


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.int8_activation(node, node.inputs[0], "input")
    out = node.outputs[0]
    checks.dtype(node, out, "output", DType.INT8)
    checks.quantized(node, out, "output")
    if float(np.float32(out.scale)) != OUTPUT_SCALE or out.zero_point != OUTPUT_ZERO_POINT:
        raise checks.fail(node, "TFLite Micro requires an int8 output with scale 16/256 and zero point 127, got "
                                f"scale {out.scale:g}, zero point {out.zero_point}")
    if not x.shape:
        raise checks.fail(node, "the input must have at least one dimension")


def prepare(node: Node) -> LogSoftmaxS8Params:
    x = node.inputs[0]
    assert x is not None
    real = min(float(np.float32(x.scale)) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    if not real > 1.0:
        raise UnsupportedError(f"node {node.name!r} (log_softmax): the input scale {x.scale:g} is too small for "
                               "TFLite Micro's int8 log-softmax (needs > 2^-26)")
    multiplier, shift = greater_than_one_multiplier(real)
    reverse_multiplier, reverse_shift = quantize_multiplier((1 << (31 - shift)) / float(multiplier))
    radius = math.floor(((1 << SCALED_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SCALED_DIFF_INTEGER_BITS)) / 2.0**shift)
    depth = x.shape[-1]
    return LogSoftmaxS8Params(x.size // depth if depth else 0, depth, multiplier, min(shift, 30), reverse_multiplier,
                              reverse_shift, -radius)


def reference(node: Node, p: LogSoftmaxS8Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], dtype=np.int64).reshape(p.rows, p.depth)
    diff = x - x.max(axis=1, keepdims=True)
    used = diff >= p.diff_min
    q5 = multiply_by_quantized_multiplier(np.where(used, diff, 0), p.input_multiplier, p.input_left_shift)
    exps = fp.exp_on_negative_values(q5, SCALED_DIFF_INTEGER_BITS)
    sums = fp.wrap32(np.where(used, fp.rescale(exps, 0, ACCUMULATION_INTEGER_BITS), 0).sum(axis=1))
    log_sum = fp.log_x_for_x_greater_than_or_equal_to_1(sums, ACCUMULATION_INTEGER_BITS, SCALED_DIFF_INTEGER_BITS)
    bound = multiply_by_quantized_multiplier(log_sum + INT32_MIN, p.reverse_multiplier, p.reverse_shift)
    adjusted = np.maximum(p.diff_min - 1, bound)[:, None]
    exponent = 31 - SCALED_DIFF_INTEGER_BITS - OUTPUT_INTEGER_BITS
    logs = rounding_divide_by_pot(fp.wrap32(q5 - log_sum[:, None]), exponent) + 127
    out = np.where(diff > adjusted, np.clip(logs, -128, 127), -128)
    return [out.astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: LogSoftmaxS8Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_log_softmax_s8", "mote_log_softmax_s8_params", vars(p).copy(),
                 [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)
