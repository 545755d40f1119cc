"""L2_NORMALIZATION on int8 (output scale 1/128, zero point 0), as TFLite Micro computes it: per row over the
last axis, the sum of squares of (x - zp) in int32, its inverse square root as a multiplier and shift
(GetInvSqrtQuantizedMultiplierExp: the sum normalized by pairs of bits, five Newton-Raphson steps in
gemmlowp Q3 fixed point, times sqrt(2) / 2), then each (x - zp) requantized by it to 7 fractional bits."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.ir import Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter
from mote.quant import multiply_by_quantized_multiplier, rounding_divide_by_pot

HALF_SQRT_2 = 1518500250  # sqrt(2) / 2 in Q0.31


@dataclass(frozen=True)
class L2NormS8Params:
    rows: int
    depth: int
    input_zero_point: int


def inv_sqrt(value: int) -> tuple[int, int]:
    """TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: (multiplier, shift) of 1 / sqrt(value)."""
    if value <= 1:
        return 2**31 - 1, 0
    shift = 11
    while value >= 1 << 29:
        value //= 4
        shift += 1
    pairs = (int(fp.count_leading_zeros(np.int64(value))) - 1) // 2 - 1
    shift -= pairs
    value <<= 2 * pairs
    half_input = int(rounding_divide_by_pot(np.int64(value >> 1), 1))
    half_three = (1 << 28) + (1 << 27)
    x = 1 << 28  # 1 in Q3
    for _ in range(5):
        cube = int(fp.shift_left_saturating(fp.mul(fp.mul(x, x), x), 6))
        x = int(fp.shift_left_saturating(fp.wrap32(int(fp.mul(half_three, x)) - int(fp.mul(half_input, cube))), 3))
    x = int(fp.mul(x, HALF_SQRT_2))
    if shift < 0:
        x = int(fp.wrap32(x << -shift))
        shift = 0
    return x, -shift


def check(node: Node) -> None:
    checks.unary_int8(node)
    out = node.outputs[0]
    if float(np.float32(out.scale)) != 1 / 128 or out.zero_point != 0:
        raise checks.fail(node, f"the int8 output has scale {out.scale:g} and zero point {out.zero_point}; TFLite "
                                "Micro requires 1/128 and 0")


def prepare(node: Node) -> L2NormS8Params:
    x = node.inputs[0]
    assert x is not None
    depth = x.shape[-1]
    return L2NormS8Params(x.size // depth, depth, x.zero_point)


def reference(node: Node, p: L2NormS8Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = np.asarray(inputs[0], np.int64).reshape(p.rows, p.depth) - p.input_zero_point
    out = np.empty_like(d)
    for r, row in enumerate(d):
        multiplier, shift = inv_sqrt(int(fp.wrap32(int((row * row).sum()))))
        out[r] = multiply_by_quantized_multiplier(row, multiplier, shift + 7)
    return [np.clip(out, -128, 127).astype(np.int8).reshape(node.outputs[0].shape)]


def emit(node: Node, p: L2NormS8Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_l2_normalization_s8", "mote_l2_normalization_s8_params", dict(vars(p)),
                 [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)
