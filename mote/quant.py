"""Quantization arithmetic, computed once at compile time and mirrored bit for bit by the C kernels.

The semantics are TFLite Micro's reference kernels (gemmlowp fixed point): a real multiplier is
stored as a Q31 integer and a power-of-two shift; requantizing rounds half away from zero twice
(doubling high multiply, then rounding divide by a power of two). `mote_fixedpoint.h` is the C twin.
"""

from __future__ import annotations

import math

import numpy as np

from mote.errors import UnsupportedError

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def round_half_away(x: float) -> int:
    """C's round() / TfLiteRound: halves go away from zero."""
    if not math.isfinite(x):  # C's cast of it would be undefined: a scale far too small or large
        raise UnsupportedError(f"a quantized value ({x}) is not finite; check the tensors' scales")
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def round_to_int32(x: float, what: str) -> int:
    """static_cast<int32_t>(TfLiteRound(x)): outside int32 the cast is undefined in C, so refuse."""
    r = round_half_away(x)
    if not INT32_MIN <= r <= INT32_MAX:
        raise UnsupportedError(f"{what} quantizes to {r}, outside int32, where TFLite Micro's result is undefined; "
                               "check the tensors' scales")
    return r


def quantize_multiplier(real: float) -> tuple[int, int]:
    """(Q31 multiplier, shift) with real == multiplier * 2**(shift - 31); shift > 0 means left."""
    if real == 0.0:
        return 0, 0
    if not math.isfinite(real):
        raise UnsupportedError(f"a scale ratio ({real}) is not finite; check the tensors' scales")
    q, shift = math.frexp(real)
    q_fixed = round_half_away(q * (1 << 31))
    assert q_fixed <= 1 << 31
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if q_fixed > INT32_MAX or shift > 30:
        raise UnsupportedError(f"a scale ratio ({real:g}) is beyond what TFLite's fixed-point multipliers "
                               "represent; check the tensors' scales")
    return q_fixed, shift


def quantize_multiplier_smaller_than_one(real: float) -> tuple[int, int]:
    """As quantize_multiplier, for 0 <= real < 1 (shift <= 0)."""
    assert 0.0 <= real < 1.0, real
    multiplier, shift = quantize_multiplier(real)
    assert shift <= 0
    return multiplier, shift


def saturating_rounding_doubling_high_mul(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """gemmlowp's SaturatingRoundingDoublingHighMul, elementwise on int32 values (as int64)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    total = ab + nudge
    high = np.abs(total) // (1 << 31) * np.sign(total)  # C division truncates toward zero
    overflow = (a == INT32_MIN) & (b == INT32_MIN)
    return np.where(overflow, INT32_MAX, high).astype(np.int64)


def rounding_divide_by_pot(x: np.ndarray, exponent: np.ndarray | int) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT: x / 2**exponent, halves rounded away from zero."""
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x: np.ndarray, multiplier: np.ndarray | int,
                                     shift: np.ndarray | int) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier on int32 values; multiplier/shift broadcast (per channel).
    Its left shift `x * (1 << shift)` is int32 arithmetic in TFLite and wraps (only for absurd scale
    ratios); so does this, which keeps the model equal to the C kernels for every input."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    shifted = (np.asarray(x, dtype=np.int64) * (np.int64(1) << left) + 2**31) % 2**32 - 2**31
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right)


def multiply_by_quantized_multiplier_64(x: np.ndarray, multiplier: np.ndarray | int,
                                        shift: np.ndarray | int) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier for int64 accumulators (the 16x8 kernels): the multiplier
    rounded to 15 bits, one rounding shift, the result cast to int32 (it wraps where TFLite's does)."""
    m = np.asarray(multiplier, dtype=np.int64)
    reduced = np.where(m < 0x7FFF0000, (m + (1 << 15)) >> 16, 0x7FFF)
    total = 15 - np.asarray(shift, dtype=np.int64)
    result = (np.asarray(x, dtype=np.int64) * reduced + (np.int64(1) << (total - 1))) >> total
    return (result + 2**31) % 2**32 - 2**31
