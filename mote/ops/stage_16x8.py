"""The output stage of the blocked 16x8 kernels (mote_stage_s16.h): one table row per output channel,
computed at compile time, that turns a layer's int32 sum s (no bias; every partial sum fits int32) into
the int16 output TFLite Micro gives for the int64 accumulator s + bias:

  row = [below, above, M, C low word, C high word, shift]

TFLite's int64 MultiplyByQuantizedMultiplier of s + bias is (s * reduced + B) >> total, with the
multiplier reduced to 15 bits and B = bias * reduced + 2^(total - 1). The row scales both up by
2^(32 - total) where total < 32 (M = reduced * 2^(32 - total) < 2^32, C = B * 2^(32 - total)), so that
the kernels take the high word of the 64-bit s * M + C, shifted right by total - 32 where total > 32: one
multiply to the high word and no 64-bit shift. The row is only made where that value stays within int64
and int32 for every sum the weights allow (|s| <= bound); the value then rises with s, and the outputs clamp
below `below` and above `above` without a multiply (the thresholds found by bisection on the exact
function).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
ROW = 6  # MOTE_STAGE_S16_ROW


def _wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def _first(lo: int, hi: int, ok: Callable[[int], bool]) -> int:
    """The smallest s in [lo, hi] with ok(s), for ok monotone from False to True; hi + 1 if none."""
    if not ok(hi):
        return hi + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def stage_row(multiplier: int, shift: int, bias: int, bound: int, offset: int, act_min: int,
              act_max: int) -> list[int] | None:
    """One channel's row for sums |s| <= bound; None when the stage cannot take it exactly."""
    reduced = (multiplier + (1 << 15)) >> 16 if multiplier < 0x7FFF0000 else 0x7FFF
    total = 15 - shift
    if reduced < 0 or not 1 <= total <= 62 or bound > INT32_MAX - 1 or abs(bias) + bound >= 2**47:
        return None  # TFLite bounds its int64 accumulator to 2^47
    up = max(0, 32 - total)
    m, c = reduced << up, (bias * reduced + (1 << (total - 1))) << up
    if m >= 2**32 or bound * m + abs(c) >= 2**63:
        return None

    def scaled(s: int) -> int:
        return (s * reduced + (bias * reduced + (1 << (total - 1)))) >> total

    low, high = scaled(-bound), scaled(bound)
    if not (INT32_MIN <= low + offset and high + offset <= INT32_MAX and INT32_MIN <= low and high <= INT32_MAX):
        return None

    def output(s: int) -> int:
        return min(max(scaled(s) + offset, act_min), act_max)

    below = _first(-bound, bound, lambda s: output(s) > act_min)
    above = _first(-bound, bound, lambda s: output(s) >= act_max) - 1
    return [below, above, _wrap32(m), _wrap32(c & 0xFFFFFFFF), _wrap32(c >> 32), max(0, total - 32)]


def stage_table(multiplier: np.ndarray, shift: np.ndarray, bias: np.ndarray | None, bounds: np.ndarray,
                offset: int, act_min: int, act_max: int, channels: int) -> np.ndarray | None:
    """Rows for `channels` channels (rows past the layer's are zeros: outputs nobody keeps), or None."""
    table = np.zeros((channels, ROW), np.int32)
    for ch in range(len(multiplier)):
        row = stage_row(int(multiplier[ch]), int(shift[ch]), 0 if bias is None else int(bias[ch]),
                        int(bounds[ch]), offset, act_min, act_max)
        if row is None:
            return None
        table[ch] = row
    return table


def sum_bounds(weights: np.ndarray, largest_input: int = 1 << 15) -> np.ndarray:
    """Per output channel (axis 0), the largest |sum| of its products: sum |w| * the largest |input|."""
    return np.abs(weights.astype(np.int64)).reshape(weights.shape[0], -1).sum(axis=1) * largest_input

