"""Compile-time quantization arithmetic against known TFLite values."""

from __future__ import annotations

import numpy as np
import pytest

from mote.quant import (
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
)


@pytest.mark.parametrize("real, expected", [(0.5, (1 << 30, 0)), (1.0, (1 << 30, 1)), (0.25, (1 << 30, -1)),
                                            (0.0, (0, 0)), (3.0, (3 << 29, 2))])
def test_quantize_multiplier(real: float, expected: tuple[int, int]) -> None:
    assert quantize_multiplier(real) == expected


def test_quantize_multiplier_round_trips() -> None:
    for real in np.random.default_rng(0).uniform(1e-6, 10, 1000):
        m, shift = quantize_multiplier(float(real))
        assert abs(m * 2.0 ** (shift - 31) - real) <= real * 2**-30


def test_rounding_divide_rounds_halves_away_from_zero() -> None:
    x = np.array([5, -5, 6, -6, 7, -7])
    assert rounding_divide_by_pot(x, 1).tolist() == [3, -3, 3, -3, 4, -4]


def test_doubling_high_mul_saturates_the_one_overflow() -> None:
    assert saturating_rounding_doubling_high_mul(-(2**31), -(2**31)) == 2**31 - 1


def test_requantize_by_a_half() -> None:
    """gemmlowp's nudge is 1 - 2**30 for negative products: -5.5 rounds toward zero, +5.5 away."""
    m, shift = quantize_multiplier(0.5)
    assert multiply_by_quantized_multiplier(np.array([10, 11, -11]), m, shift).tolist() == [5, 6, -5]


def test_doubling_high_mul_is_a_rounded_shift() -> None:
    """The identity mote_srdhm relies on: gemmlowp's sign-dependent nudge and truncating division
    equal one floor shift of (a*b + 2**30), ties included."""
    rng = np.random.default_rng(0)
    a = rng.integers(-(2**31), 2**31, 200_000, dtype=np.int64)
    b = rng.integers(-(2**31), 2**31, 200_000, dtype=np.int64)
    a[:2000], b[:2000] = rng.integers(-1000, 1000, 2000) * 2 + 1, 2**30  # products at exact ties
    keep = ~((a == -(2**31)) & (b == -(2**31)))
    assert np.array_equal(saturating_rounding_doubling_high_mul(a, b)[keep], ((a * b + 2**30) >> 31)[keep])
