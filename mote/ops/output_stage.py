"""A layer's output stage (requantize, offset, clamp) as one table, with exact shortcuts computed per
channel at compile time from its multipliers; the C side is mote_output_of in mote_output_stage.h.

Where the shift is not to the left, requantization is monotone in the accumulator (no left shift to
wrap), and a kernel takes act_min for an accumulator x < `min_below` (with a ReLU, a third to a half
of the outputs) without requantizing. The threshold is found by bisection on the reference.
Where the shift is to the right by R >= 1, a kernel also takes act_max for x > `max_above` (found the
same way), and otherwise one multiply and four or five operations instead of the two roundings'
eleven. TFLite's doubling high multiply is v = floor((x * m + 2^30) / 2^31), the high word of
x * 2m + 2^31, i.e. hi(x * m2) + (lo(x * m2) >> 31) with m2 = 2m < 2^32; its rounding shift (halves
away from zero) is floor((v - [v < 0] + 2^(R-1)) / 2^R), and with the output offset folded in,
k = 2^(R-1) + offset * 2^R, the output is (v - [v < 0] + k) >> R, where [v < 0] is 0 for x >= 0
(x > `fast_after`). Between the thresholds the output is strictly inside (act_min, act_max), so it
needs no clamp. The C adds in 32 bits: the sum before the shift is q * 2^R plus less than 2^R for an
output q in [-128, 127], inside int32 for R up to 24 (WIDE_SHIFT). For a larger R it stays inside
int32 between the thresholds for some offsets and clamps (the sum grows with x, so its two ends
decide); where it does not, the channel is "wide": since floor(floor(a / 2^t) / 2^u) =
floor(a / 2^(t + u)), and 2^(R-1) + offset * 2^R is a multiple of 2^t for t = R - 24, the output is
(((v - [v < 0]) >> t) + k) >> 24 with k = 2^23 + offset * 2^24. A wide channel's accumulators above
min_below all take that path (fast_after is INT32_MAX, its shift 24, and t = -TFLite shift - 24);
a kernel reaches it out of line, one shift more than the negative path.
Other channels take the two roundings for every other accumulator (fast_after and max_above are
INT32_MAX, the shift 0), and a left-shifting one for every accumulator (min_below is INT32_MIN too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ops.registry import Emitter
from mote.quant import multiply_by_quantized_multiplier

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
WIDE_SHIFT = 24  # the largest shift whose sum before it always fits int32 (see the module docstring)


@dataclass(frozen=True)
class OutputShortcuts:
    min_below: np.ndarray  # int32 [channels]: below it, act_min
    fast_after: np.ndarray  # int32: above it (a non-negative accumulator), the one-multiply path...
    max_above: np.ndarray  # ...or above this one, act_max
    m2: np.ndarray  # 2 * multiplier (uint32 bits as int32)
    k: np.ndarray  # 2^(R-1) + offset * 2^R
    shift: np.ndarray  # R: the right shift, or WIDE_SHIFT where the sum is shifted by the rest first


def bisect_first(pred: Callable[[np.ndarray], np.ndarray], channels: int) -> tuple[np.ndarray, np.ndarray]:
    """Per channel, the smallest int32 accumulator where the monotone `pred` holds (INT32_MAX where it
    never does), by bisection, and whether it holds there."""
    low = np.full(channels, INT32_MIN, np.int64)
    high = np.full(channels, INT32_MAX, np.int64)
    while np.any(low < high):
        mid = (low + high) // 2
        up = pred(mid)
        high, low = np.where(up, mid, high), np.where(up, low, mid + 1)
    return low, pred(low)


def output_shortcuts(multiplier: np.ndarray, shift: np.ndarray, output_offset: int, act_min: int,
                     act_max: int) -> OutputShortcuts:
    channels = len(multiplier)

    def output(acc: np.ndarray) -> np.ndarray:  # before the clamp
        return multiply_by_quantized_multiplier(acc, multiplier, shift) + output_offset

    low, found_low = bisect_first(lambda acc: output(acc) > act_min, channels)
    high, found_high = bisect_first(lambda acc: output(acc) >= act_max, channels)
    right = -np.asarray(shift, np.int64)
    monotone = right >= 0
    # The shortcuts need outputs between the clamps: one above act_min and one below act_max.
    shortcuts = monotone & (right >= 1) & found_low & (high > INT32_MIN)
    max_above = np.where(found_high, high - 1, INT32_MAX)
    m2 = 2 * np.asarray(multiplier, np.int64)
    r = np.where(shortcuts, right, 1)
    k = np.left_shift(np.int64(1), r - 1) + output_offset * np.left_shift(np.int64(1), r)
    fast = shortcuts & (_before_shift(low, m2, k) >= INT32_MIN) & (_before_shift(max_above, m2, k) <= INT32_MAX)
    wide = shortcuts & ~fast  # R > WIDE_SHIFT: the sum is taken down to a shift of WIDE_SHIFT first
    r = np.where(wide, WIDE_SHIFT, r)
    k = np.left_shift(np.int64(1), r - 1) + output_offset * np.left_shift(np.int64(1), r)
    return OutputShortcuts(np.where(monotone, low, INT32_MIN).astype(np.int32),
                           np.where(fast, np.maximum(low, 0) - 1, INT32_MAX).astype(np.int32),
                           np.where(shortcuts, max_above, INT32_MAX).astype(np.int32),
                           m2.astype(np.uint32).view(np.int32),
                           (np.where(shortcuts, k, 0) & 0xFFFFFFFF).astype(np.uint32).view(np.int32),  # mod 2^32
                           np.where(shortcuts, r, 0).astype(np.int32))


def _before_shift(acc: np.ndarray, m2: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The fast paths' sum before the shift, v - [v < 0] + k, exactly, in Python integers."""
    def one(x: int, m: int, add: int) -> int:
        v = (x * m + 2**31) >> 32
        return v - (v < 0) + add

    return np.array([one(int(x), int(m), int(add)) for x, m, add in zip(acc, m2, k)], dtype=np.int64)


def output_stage_rows(multiplier: np.ndarray, shift: np.ndarray, cuts: OutputShortcuts) -> np.ndarray:
    """A layer's output-stage table for mote_output_channel_at (mote_output_stage.h): one row of int32
    words per channel, in the order the C reads them."""
    return np.stack([multiplier, shift, cuts.min_below, cuts.fast_after, cuts.max_above, cuts.m2, cuts.k,
                     cuts.shift], axis=1).astype(np.int32)


def output_multipliers(shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TFLite's per-channel shifts (in [-31, 31]) as the kernels' full output stage takes them
    (mote_output_stage.h): left_mul = 2^max(shift, 0) and right_mul = 2^(31 - max(-shift, 0)), each an
    int32 array holding the bits of a uint32 (2^31 reads as INT32_MIN)."""
    shift = np.asarray(shift, np.int64)
    if shift.size and (shift.min() < -31 or shift.max() > 31):
        raise UnsupportedError(f"requantization shift out of range: {shift.min()}..{shift.max()}")
    left = np.left_shift(np.uint64(1), np.maximum(shift, 0).astype(np.uint64))
    right = np.left_shift(np.uint64(1), (31 - np.maximum(-shift, 0)).astype(np.uint64))
    return left.astype(np.uint32).view(np.int32), right.astype(np.uint32).view(np.int32)


def output_stage(em: Emitter, multiplier: np.ndarray, shift: np.ndarray, output_offset: int, act_min: int,
                 act_max: int) -> str:
    """A layer's output stage with its exact shortcuts, emitted as one table (mote_output_channel_at)."""
    multiplier, shift = np.atleast_1d(multiplier), np.atleast_1d(shift)
    cuts = output_shortcuts(multiplier, shift, output_offset, act_min, act_max)
    return em.const(output_stage_rows(multiplier, shift, cuts), "output_stage")
