"""mote's float32 transcendentals in numpy, operation for operation the C of mote/runtime (mote_expf.c,
mote_tanhf.c, mote_exp_double.h), so that the reference interpreter and the generated C agree bit for
bit. Both work in double and round to float once: the results are within 1 ULP of the exact values
(tests/ops/test_float_math.py measures them against the C library, which TFLite Micro calls).
"""

from __future__ import annotations

import numpy as np

_LOG2E = 1.4426950408889634
_LN2_HI = 0.6931471803691238  # ln 2 split: k * _LN2_HI is exact for the k used here
_LN2_LO = 1.9082149292705877e-10
_INVERSE_FACTORIALS = [1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
                       1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0]
_TANH_SERIES = [-1382.0 / 155925.0, 62.0 / 2835.0, -17.0 / 315.0, 2.0 / 15.0, -1.0 / 3.0, 1.0]


def exp_double(x: np.ndarray) -> np.ndarray:
    """mote_exp_double: e^x in float64 for |x| <= 700."""
    x = np.asarray(x, np.float64)
    kd = x * _LOG2E
    k = np.trunc(kd + np.where(kd >= 0.0, 0.5, -0.5))
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = np.full_like(x, 1.0 / 479001600.0)
    for c in _INVERSE_FACTORIALS:
        p = p * r + c
    return np.ldexp(p, k.astype(np.int64))


def expf(x: np.ndarray) -> np.ndarray:
    """mote_expf."""
    x = np.asarray(x, np.float32)
    inside = np.clip(x, np.float32(-104.0), np.float32(89.0)).astype(np.float64)
    with np.errstate(over="ignore"):
        out = exp_double(inside).astype(np.float32)
    out = np.where(x > np.float32(89.0), np.float32(np.inf), np.where(x < np.float32(-104.0), np.float32(0.0), out))
    return np.where(np.isnan(x), x, out).astype(np.float32)


def tanhf(x: np.ndarray) -> np.ndarray:
    """mote_tanhf."""
    x = np.asarray(x, np.float32)
    a = np.where(x < 0, -x.astype(np.float64), x.astype(np.float64))  # as the C: -0 stays -0
    a2 = a * a
    series = np.full_like(a, _TANH_SERIES[0])
    for c in _TANH_SERIES[1:]:  # Horner from the innermost coefficient, as the C nests it
        series = c + a2 * series
    small = a * series
    e = exp_double(np.minimum(2.0 * a, 20.0))
    t = np.where(a < 0.125, small, np.where(a < 9.1, (e - 1.0) / (e + 1.0), 1.0))
    out = np.where(x < 0, -t, t).astype(np.float32)
    return np.where(np.isnan(x), x, out).astype(np.float32)
