"""gemmlowp-style fixed-point math for the activation functions (softmax, logistic, tanh), in numpy.

A fixed-point value is an int32 `raw` with `integer_bits` bits left of the binary point (Qm.n with
m = integer_bits, n = 31 - m). Values are carried as int64 numpy arrays holding int32 values; every
plain add/sub/negate wraps to int32 as the C++ original does, so results match it bit for bit even
where it overflows. `mote_gemmlowp.h` is the C twin: both follow TFLite Micro's reference kernels,
which use gemmlowp's scalar fixedpoint.h. Multiplying two fixed-point values is
saturating_rounding_doubling_high_mul (integer bits add up).
"""

from __future__ import annotations

import numpy as np

from mote.quant import INT32_MAX, INT32_MIN, rounding_divide_by_pot, saturating_rounding_doubling_high_mul

# Q0 constants of gemmlowp's exp / reciprocal approximations (raw int32 values).
EXP_MINUS_ONE_EIGHTH = 1895147668  # exp(-1/8)
ONE_THIRD = 715827883  # 1/3
Q2_48_OVER_17 = 1515870810  # 48/17 in Q2.29
Q2_MINUS_32_OVER_17 = -1010580540  # -32/17 in Q2.29
# exp(-2^k) in Q0 for k = -2..4: the barrel shifter of exp_on_negative_values.
EXP_OF_MINUS_POT = {-2: 1672461947, -1: 1302514674, 0: 790015084, 1: 290630308, 2: 39332535, 3: 720401, 4: 242}


def wrap32(x: np.ndarray | int) -> np.ndarray:
    """Two's-complement wrap to int32 (what int32 arithmetic does on overflow)."""
    return (np.asarray(x, dtype=np.int64) + 2**31) % 2**32 - 2**31


def mul(a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    """Fixed-point product: the integer bits of the operands add up."""
    return saturating_rounding_doubling_high_mul(np.asarray(a, dtype=np.int64), b)


def shift_left_saturating(x: np.ndarray, exponent: int) -> np.ndarray:
    """x * 2^exponent saturated to int32 (gemmlowp's SaturatingRoundingMultiplyByPOT, exponent > 0)."""
    threshold = (1 << (31 - exponent)) - 1
    shifted = np.asarray(x, dtype=np.int64) * (1 << exponent)
    return np.where(x > threshold, INT32_MAX, np.where(x < -threshold, INT32_MIN, shifted))


def multiply_by_pot(x: np.ndarray, exponent: int) -> np.ndarray:
    """x * 2^exponent: saturating for exponent > 0, rounding (half away from zero) for exponent < 0."""
    if exponent > 0:
        return shift_left_saturating(x, exponent)
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    return np.asarray(x, dtype=np.int64)


def rescale(x: np.ndarray, src_integer_bits: int, dst_integer_bits: int) -> np.ndarray:
    """The same real value with a different number of integer bits (gemmlowp's Rescale)."""
    return multiply_by_pot(x, src_integer_bits - dst_integer_bits)


def rounding_half_sum(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """(a + b) / 2 rounded half away from zero (C division truncates toward zero)."""
    total = np.asarray(a, dtype=np.int64) + b
    nudged = total + np.where(total >= 0, 1, -1)
    return np.sign(nudged) * (np.abs(nudged) // 2)


def exp_on_interval_between_negative_one_quarter_and_0_excl(a: np.ndarray) -> np.ndarray:
    """exp(a) for a in [-1/4, 0), Q0 in and out: a Taylor expansion around -1/8."""
    x = wrap32(a + (1 << 28))  # a + 1/8
    x2 = mul(x, x)
    x3 = mul(x2, x)
    x4 = mul(x2, x2)
    x4_over_4 = rounding_divide_by_pot(x4, 2)
    poly = rounding_divide_by_pot(wrap32(mul(wrap32(x4_over_4 + x3), ONE_THIRD) + x2), 1)
    return wrap32(EXP_MINUS_ONE_EIGHTH + mul(EXP_MINUS_ONE_EIGHTH, wrap32(x + poly)))


def exp_on_negative_values(a: np.ndarray, integer_bits: int) -> np.ndarray:
    """exp(a) for a <= 0 given with `integer_bits`; the result is Q0 (exp(0) is INT32_MAX)."""
    a = np.asarray(a, dtype=np.int64)
    fractional_bits = 31 - integer_bits
    one_quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_quarter = (a & (one_quarter - 1)) - one_quarter
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        rescale(a_mod_quarter_minus_quarter, integer_bits, 0))
    remainder = wrap32(a_mod_quarter_minus_quarter - a)  # the multiple of 1/4 still to apply
    for exponent, multiplier in EXP_OF_MINUS_POT.items():
        if integer_bits > exponent:
            bit = 1 << (fractional_bits + exponent)
            result = np.where(remainder & bit, mul(result, multiplier), result)
    if integer_bits > 5:  # exp(x) for x < -32 is 0
        result = np.where(a < -(1 << (36 - integer_bits)), 0, result)
    return np.where(a == 0, INT32_MAX, result)


def _newton_reciprocal_q2(half_denominator: np.ndarray) -> np.ndarray:
    """1 / half_denominator for half_denominator in [1/2, 1), Q2 result: three Newton-Raphson steps."""
    x = wrap32(Q2_48_OVER_17 + mul(half_denominator, Q2_MINUS_32_OVER_17))
    one_q2 = 1 << 29
    for _ in range(3):
        one_minus_hd_x = wrap32(one_q2 - mul(half_denominator, x))
        x = wrap32(x + rescale(mul(x, one_minus_hd_x), 4, 2))
    return x


def one_over_one_plus_x_for_x_in_0_1(a: np.ndarray) -> np.ndarray:
    """1 / (1 + a) for a in [0, 1), Q0 in and out."""
    x = _newton_reciprocal_q2(rounding_half_sum(a, INT32_MAX))
    return rescale(x, 1, 0)  # x / 2 viewed as Q1, then back to Q0


def one_minus_x_over_one_plus_x_for_x_in_0_1(a: np.ndarray) -> np.ndarray:
    """(1 - a) / (1 + a) for a in [0, 1), Q0 in and out."""
    x = _newton_reciprocal_q2(rounding_half_sum(a, INT32_MAX))
    return rescale(wrap32(x - (1 << 29)), 2, 0)


def logistic(a: np.ndarray, integer_bits: int) -> np.ndarray:
    """1 / (1 + exp(-a)), Q0 result."""
    a = np.asarray(a, dtype=np.int64)
    abs_input = np.where(a > 0, a, wrap32(-a))
    on_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(wrap32(-abs_input), integer_bits))
    on_negative = wrap32(INT32_MAX - on_positive)
    return np.where(a == 0, 1 << 30, np.where(a > 0, on_positive, on_negative))


def tanh(a: np.ndarray, integer_bits: int) -> np.ndarray:
    """tanh(a) = (1 - exp(-2|a|)) / (1 + exp(-2|a|)) with a's sign, Q0 result."""
    a = np.asarray(a, dtype=np.int64)
    non_positive = np.where(a < 0, a, wrap32(-a))
    # exp(2 * n): the same raw value read with one more integer bit is exactly twice as large.
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(non_positive, integer_bits + 1))
    return np.where(a == 0, 0, np.where(a < 0, wrap32(-t), t))


def count_leading_zeros(x: np.ndarray) -> np.ndarray:
    """Leading zero bits of x read as uint32 (32 for 0)."""
    x = np.asarray(x, dtype=np.int64) & 0xFFFFFFFF
    n = np.zeros_like(x)
    for bits in (16, 8, 4, 2, 1):
        small = x < (1 << (32 - bits))
        n = np.where(small, n + bits, n)
        x = np.where(small, x << bits, x)
    return np.where(x == 0, 32, n)


def reciprocal(x: np.ndarray, integer_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """1 / x for x > 0 with `integer_bits`: (Q0 raw of 1 / (x * 2^-num_bits_over_unit), num_bits_over_unit).

    TFLite's GetReciprocal: normalize x into [1, 2) by its headroom, then 1 / (1 + fraction).
    """
    x = np.asarray(x, dtype=np.int64)
    headroom_plus_one = count_leading_zeros(x)
    num_bits_over_unit = integer_bits - headroom_plus_one
    shifted_minus_one = wrap32(((x << headroom_plus_one) & 0xFFFFFFFF) - (1 << 31))
    return one_over_one_plus_x_for_x_in_0_1(shifted_minus_one), num_bits_over_unit


# Q0 constants of TFLite's log_x_for_x_greater_than_or_equal_to_1 (raw int32 values).
LOG_2 = 1488522236  # log(2)
SQRT_SQRT_HALF = 1805811301  # 0.5^(1/4)
SQRT_HALF = 1518500250  # 0.5^(1/2)
ONE_QUARTER = 536870912  # 1/4
LOG_ALPHA_N = 117049297  # 11/240 * 2^(1/4)
LOG_ALPHA_D = 127690142  # 1/20 * 2^(1/4)
LOG_ALPHA_I = 1057819769  # 2 / 2^(1/4) - 2^(1/4)
LOG_ALPHA_F = 638450708  # 1/4 * 2^(1/4)


def _saturate32(x: np.ndarray) -> np.ndarray:
    return np.clip(np.asarray(x, dtype=np.int64), INT32_MIN, INT32_MAX)


def log_x_for_x_greater_than_or_equal_to_1(x: np.ndarray, input_bits: int, output_bits: int) -> np.ndarray:
    """log(x) for x >= 1 given with `input_bits` integer bits; the result has `output_bits` (TFLite's
    log_x_for_x_greater_than_or_equal_to_1_impl): x's power of two from its headroom, read twice (x and
    x * sqrt(1/2)) to keep the remainder r near 2^(-1/4), then a rational approximation of log(r)."""
    accum_bits = output_bits + 1
    z_a = np.asarray(x, dtype=np.int64)
    a_headroom_plus_1 = count_leading_zeros(z_a)
    r_a_tmp = np.where(a_headroom_plus_1 > 1, _shift_left_saturating_by(z_a, a_headroom_plus_1 - 1), z_a)
    r_a = shift_left_saturating(mul(r_a_tmp, SQRT_HALF), 1)
    quarter = rescale(np.int64(ONE_QUARTER), 0, accum_bits)
    z_a_pow_2_adj = _saturate32(shift_left_saturating(input_bits - a_headroom_plus_1, 31 - accum_bits) + quarter)
    z_b = mul(z_a, SQRT_HALF)
    b_headroom = count_leading_zeros(z_b) - 1
    r_b = np.where(b_headroom > 0, _shift_left_saturating_by(z_a, b_headroom), z_a)
    z_b_pow_2_adj = _saturate32(shift_left_saturating(input_bits - b_headroom, 31 - accum_bits) - quarter)
    r = np.minimum(r_a, r_b)
    z_pow_2_adj = np.maximum(z_a_pow_2_adj, z_b_pow_2_adj)
    p = rounding_half_sum(r, SQRT_SQRT_HALF)
    q = wrap32(r - SQRT_SQRT_HALF)
    q = wrap32(q + q)
    common_sq = mul(q, q)
    num = wrap32(mul(q, r) + mul(mul(q, common_sq), LOG_ALPHA_N))
    inner = wrap32(wrap32(LOG_ALPHA_I + q) + mul(LOG_ALPHA_D, common_sq))
    denom_minus_one = wrap32(mul(p, inner) + mul(LOG_ALPHA_F, q))
    recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one)
    num_scaled = rescale(num, 0, accum_bits)
    return rescale(wrap32(mul(z_pow_2_adj, LOG_2) + mul(num_scaled, recip_denom)), accum_bits, output_bits)


def _shift_left_saturating_by(x: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """shift_left_saturating with an exponent per element (each in 1..31)."""
    x = np.asarray(x, dtype=np.int64)
    exponents = np.asarray(exponents, dtype=np.int64)
    threshold = (np.int64(1) << (31 - exponents)) - 1
    shifted = wrap32(x << exponents)
    return np.where(x > threshold, INT32_MAX, np.where(x < -threshold, INT32_MIN, shifted))
