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


_LOG_SERIES = [1.0 / n for n in range(21, 0, -2)]
_SIN_SERIES = [1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
               1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0]
_COS_SERIES = [-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0,
               -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0, -0.5, 1.0]
_EXPM1_SERIES = [1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0]
_ROUNDER = 6755399441055744.0  # 1.5 * 2^52: adding it rounds a double to an integer


def logf(x: np.ndarray) -> np.ndarray:
    """mote_logf."""
    x = np.asarray(x, np.float32)
    bits = x.astype(np.float64).view(np.uint64)
    k = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64) - 1023
    m = ((bits & np.uint64(0x000FFFFFFFFFFFFF)) | np.uint64(1023 << 52)).view(np.float64)
    high = m > 1.4142135623730951
    m = np.where(high, m * 0.5, m)
    k = k + high
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    series = np.full_like(s, 1.0 / 23.0)
    for c in _LOG_SERIES:
        series = series * s2 + c
    out = (k * 0.6931471805599453 + 2.0 * s * series).astype(np.float32)
    out = np.where(x == 0, np.float32(-np.inf), np.where(x < 0, np.float32(np.nan), out))
    return np.where(np.isnan(x) | np.isinf(x), x, out).astype(np.float32)


def _trig_reduce(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = x * 0.6366197723675814 + _ROUNDER
    quadrant = (t.view(np.uint64) & np.uint64(3)).astype(np.int64)
    q = t - _ROUNDER
    return (x - q * 1.5707963267341256) - q * 6.077100506506192e-11, quadrant


def _series(r2: np.ndarray, first: float, coefficients: list[float]) -> np.ndarray:
    p = np.full_like(r2, first)
    for c in coefficients:
        p = p * r2 + c
    return p


def _trig(x: np.ndarray, cosine: bool) -> np.ndarray:
    x = np.asarray(x, np.float32)
    with np.errstate(invalid="ignore"):
        r, quadrant = _trig_reduce(np.where(np.isfinite(x), x, 0).astype(np.float64))
    r2 = r * r
    sin_r = r * _series(r2, -1.0 / 121645100408832000.0, _SIN_SERIES)
    cos_r = _series(r2, 1.0 / 2432902008176640000.0, _COS_SERIES)
    if cosine:
        value = np.where(quadrant & 1, sin_r, cos_r)
        value = np.where((quadrant + 1) & 2, -value, value)
    else:
        value = np.where(quadrant & 1, cos_r, sin_r)
        value = np.where(quadrant & 2, -value, value)
    return np.where(np.isfinite(x), value.astype(np.float32), np.float32(np.nan)).astype(np.float32)


def sinf(x: np.ndarray) -> np.ndarray:
    """mote_sinf."""
    return _trig(x, cosine=False)


def cosf(x: np.ndarray) -> np.ndarray:
    """mote_cosf."""
    return _trig(x, cosine=True)


def expm1f(x: np.ndarray) -> np.ndarray:
    """mote_expm1f."""
    x = np.asarray(x, np.float32)
    xd = np.clip(x, -30.0, 89.0).astype(np.float64)
    small = xd * _series(xd, 1.0 / 40320.0, _EXPM1_SERIES)
    with np.errstate(over="ignore"):
        large = exp_double(xd) - 1.0
        out = np.where(np.abs(xd) < 0.015625, small, large).astype(np.float32)
    out = np.where(x > 89.0, np.float32(np.inf), np.where(x < -30.0, np.float32(-1.0), out))
    return np.where(np.isnan(x), x, out).astype(np.float32)


# The ops whose float32 kernels call the functions above, and how far (in ULP) their results may lie from
# TFLite Micro's, which calls the C library: each function here is within 1 ULP of the exact value, the C
# library's within 1 or 2 (glibc's tanhf), so a result may differ from TFLite Micro's by up to 2. The tests
# assert this bound op by op; README states it. An LSTM calls them five times a time step, its recurrence
# carrying each difference on (mote.tflm_match counts them).
TRANSCENDENTAL_OPS = frozenset({"exp", "log", "sin", "cos", "elu", "logistic", "tanh", "softmax", "log_softmax",
                                "unidirectional_sequence_lstm",
                                "detection_postprocess"})
ULP_BOUND = 2
