"""Exact shortcuts of a layer's output stage (requantize, offset, clamp), computed per channel at
compile time from its multipliers; the C side is mote_output_of in mote_conv_common.h.

Requantization is monotone in the accumulator where the shift is to the right (no left shift to
wrap, and the result, under 2^30, cannot wrap when the offset is added). There:
  - every accumulator below `min_below` gives act_min, which a kernel stores without requantizing
    (with a ReLU, a third to a half of the outputs). Found by bisection on the reference;
  - a non-negative accumulator above `fast_after` takes one rounding instead of two: for a right
    shift R >= 1, TFLite's doubling high multiply then rounding shift of x >= 0 is
    floor((x * m + 2^30 + 2^(30+R)) / 2^(31+R)) (the nested floors fold; the second rounding's sign
    term is 0 for x >= 0), and with the output offset folded in, K = 2^30 + 2^(30+R) +
    offset * 2^(31+R), that is the high word of x * m + K shifted right by R - 1. The high word stays
    within int32 for R <= 23, and the result is above act_min, so only act_max clamps it.
Other channels never take a shortcut (min_below INT32_MIN, fast_after INT32_MAX).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.quant import multiply_by_quantized_multiplier

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True)
class OutputShortcuts:
    min_below: np.ndarray  # int32 [channels]
    fast_after: np.ndarray  # int32 [channels]
    fast_add_lo: np.ndarray  # K's low word (uint32 bits as int32)
    fast_add_hi: np.ndarray  # K's high word
    fast_shift: np.ndarray  # R - 1


def output_shortcuts(multiplier: np.ndarray, shift: np.ndarray, output_offset: int, act_min: int,
                     act_max: int) -> OutputShortcuts:
    channels = len(multiplier)

    def above(acc: np.ndarray) -> np.ndarray:  # the output (before the clamp to act_max) is above act_min
        return multiply_by_quantized_multiplier(acc, multiplier, shift) + output_offset > act_min

    low = np.full(channels, INT32_MIN, np.int64)
    high = np.full(channels, INT32_MAX, np.int64)
    while np.any(low < high):  # the smallest accumulator whose output is above act_min, if any
        mid = (low + high) // 2
        up = above(mid)
        high, low = np.where(up, mid, high), np.where(up, low, mid + 1)
    found = above(low)
    right = -np.asarray(shift, np.int64)
    monotone = right >= 1
    fast = monotone & found & (right <= 23)
    min_below = np.where(monotone, low, INT32_MIN)
    fast_after = np.where(fast, np.maximum(low, 0) - 1, INT32_MAX)
    add_lo, add_hi, fast_shift = (np.zeros(channels, np.int64) for _ in range(3))
    for c in np.flatnonzero(fast):
        r = int(right[c])
        k = 2**30 + 2**(30 + r) + output_offset * 2**(31 + r)
        add_lo[c], add_hi[c], fast_shift[c] = k & 0xFFFF_FFFF, k >> 32, r - 1
    return OutputShortcuts(min_below.astype(np.int32), fast_after.astype(np.int32),
                           add_lo.astype(np.uint32).view(np.int32), add_hi.astype(np.int32),
                           fast_shift.astype(np.int32))


def output_stage_rows(multiplier: np.ndarray, left_mul: np.ndarray, right_mul: np.ndarray,
                      cuts: OutputShortcuts) -> np.ndarray:
    """A layer's output-stage table for mote_output_channel_at (mote_conv_common.h): one row of int32
    words per channel, in the order the C reads them."""
    return np.stack([multiplier, left_mul, right_mul, cuts.min_below, cuts.fast_after, cuts.fast_add_lo,
                     cuts.fast_add_hi, cuts.fast_shift], axis=1).astype(np.int32)
