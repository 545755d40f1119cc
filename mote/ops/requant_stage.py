"""RequantShift as the scalar kernels' output stage: one table row per channel (mote_output_stage.h,
mote_output_requant_shift), so that a convolution followed by the integer dialect's requantization
runs on the blocked kernels with its accumulators requantized straight from their registers.

A row is [mul, kind, min_below, INT32_MAX, max_above, K, third, 0]. Kind MOTE_OUTPUT_REQUANT_SHIFT + k
(k = log2(2 * divisor) for a power-of-two divisor, else 0; K = add, third = the divisor's bits): the C
computes the formula in 64 bits. Kind MOTE_OUTPUT_REQUANT_SHIFT_32 (+ 1 to divide), where every
accumulator that reaches the formula gives a sum acc * mul + K in [0, 2^32) (K = add + floor(d / 2) +
(offset + 128) * d; third = log2(d) or d): 32 bits, in line in the rv32 assembly. fast_after INT32_MAX
and a zero shortcut shift send every accumulator not below min_below to the out-of-line routine, which
takes act_max above max_above. For a non-negative multiplier the output is monotone in the accumulator
and the thresholds are found by bisection on the formula (as mote.ops.output_stage finds TFLite's); a
negative one gets none and the 64-bit kind.
"""

from __future__ import annotations

import numpy as np

from mote.ops.output_stage import INT32_MAX, INT32_MIN, bisect_first
from mote.ops.requant_shift import RequantShiftParams, outputs

REQUANT_SHIFT_KIND = 64  # MOTE_OUTPUT_REQUANT_SHIFT in mote_output_stage.h
REQUANT_SHIFT_32_KIND = 128  # MOTE_OUTPUT_REQUANT_SHIFT_32


def requant_shift_rows(p: RequantShiftParams, channels: int) -> np.ndarray:
    """The table rows of `channels` output channels (p's per-channel constants broadcast to them)."""
    assert p.input_offset == 0 and p.channels in (1, channels)
    mul = np.broadcast_to(p.mul, (channels,)).astype(np.int64)
    add = np.broadcast_to(p.add, (channels,)).astype(np.int64)
    per = RequantShiftParams(channels, channels, 0, p.output_offset, p.act_min, p.act_max, p.divisor, p.shift,
                             mul.astype(np.int32), add.astype(np.int32))
    lo, hi = p.act_min + p.output_offset, p.act_max + p.output_offset
    low, found_low = bisect_first(lambda a: outputs(a, per) > lo, channels)
    high, found_high = bisect_first(lambda a: outputs(a, per) >= hi, channels)
    monotone = mul >= 0
    min_below = np.where(monotone & found_low, low, INT32_MIN)
    max_above = np.where(monotone & found_high, high - 1, INT32_MAX)
    max_above = np.where(max_above < INT32_MIN, INT32_MIN, max_above)
    k = p.shift + 1 if p.shift >= 0 else 0
    kind = np.full(channels, REQUANT_SHIFT_KIND + k, np.int64)
    third = np.full(channels, p.divisor, np.int64)  # the divisor, or the 32-bit kind's shift
    addend = add.copy()
    for c in range(channels):
        if monotone[c] and found_low[c] and found_high[c]:
            fits = _fits_32(int(mul[c]), int(add[c]), p.divisor, p.output_offset, int(min_below[c]), int(max_above[c]))
            if fits is not None:
                kind[c] = REQUANT_SHIFT_32_KIND + (p.shift < 0)
                third[c] = p.shift if p.shift >= 0 else p.divisor
                addend[c] = fits
    bits = third.astype(np.uint32).view(np.int32)  # the divisor below 2^32 (conv2d_rqs checks)
    n = np.ones(channels, np.int64)
    return np.stack([mul, kind, min_below, n * INT32_MAX, max_above, addend.astype(np.uint32).view(np.int32),
                     bits, n * 0], axis=1).astype(np.int32)


def _fits_32(mul: int, add: int, divisor: int, offset: int, first: int, last: int) -> int | None:
    """K = add + floor(d / 2) + (offset + 128) * d modulo 2^32 when acc * mul + K is in [0, 2^32) for every
    accumulator from `first` to `last` (monotone in acc: the two ends decide), else None."""
    if first > last:  # no accumulator reaches the formula
        return 0
    k = add + divisor // 2 + (offset + 128) * divisor
    if first * mul + k < 0 or last * mul + k >= 2**32:
        return None
    return k % 2**32
