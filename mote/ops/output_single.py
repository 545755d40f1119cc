"""A one-multiply output stage, exact for the accumulators a layer can reach: its constants found at compile time.

TFLite requantizes an accumulator x in two roundings, f(x) = RoundingDivideByPOT(SRDHM(x, m), R) (a multiplier m
in [2^30, 2^31) and a right shift R >= 1). For x inside a known range, a kernel may instead compute

    g(z) = floor(z * M / 2^(32 + S)),   z = x + c,

the high word of one 32 x 32 -> 64-bit product (mulh) shifted right by S (srai), c folded into the bias at compile
time. g is not f in general (two roundings against one), but a layer needs f only between its clamps: below the
first accumulator whose output passes act_min the output is act_min, from the first whose output reaches past
act_max it is act_max, and the kernel compares z with those two thresholds before it multiplies. In between, f
takes each value n on a run of accumulators [a_n, a_(n+1)); g, nondecreasing in z, equals f + j on the whole range
when it does at both ends of every run (it cannot move inside one). j is a multiple of 256 plus the output offset,
so that the low byte of g (what a store of one byte keeps) is the output with its offset added. The search tries
S = 0 (no shift instruction) with M next to m / 2^(R-1), then S = R - 1 with M = m (the exact slope); for each, the
integers j and c with g(a + c) = f(a) + j at every checked point a form a window computed once, and j steps by
256 until the window holds a multiple of M. A channel without a solution within int32 (a left shift, a range
past the window) has none: its layer keeps the two roundings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.quant import multiply_by_quantized_multiplier

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
TRIES = 4096  # values of j tried on each side of the output offset, per multiplier


@dataclass(frozen=True)
class SingleStage:
    """One channel's constants: the kernel stores act_min below `low`, act_max from `high` on, else the low byte
    of (z * multiplier) >> (32 + shift), z = the accumulator + `add` (the bias carries `add`)."""

    low: int
    high: int
    multiplier: int
    shift: int
    add: int


def _f(x: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    return multiply_by_quantized_multiplier(np.asarray(x, np.int64), multiplier, shift)


def _first_at_least(n: int, multiplier: int, right: int) -> int:
    """The smallest x with f(x) >= n, for a right shift R >= 1 (f nondecreasing): the doubling high multiply
    v = floor((x * m + 2^30) / 2^31) must reach n * 2^R - 2^(R-1), one more for n <= 0 (halves of a negative v
    round away from zero)."""
    target = n * 2**right - 2 ** (right - 1) + (n <= 0)
    return -((-(target * 2**31 - 2**30)) // multiplier)


def check_points(multiplier: int, shift: int, offset: int, act_min: int, act_max: int, x_min: int,
                 x_max: int) -> tuple[int, int, list[tuple[int, int]]]:
    """The thresholds (the first accumulator above act_min, the first at act_max or past it; each clipped to
    [x_min, x_max + 1]) and the points (x, f(x)) whose agreement proves g on every accumulator between them:
    both ends of each run of equal outputs, checked against the reference."""
    right = -shift
    clip = lambda x: min(max(x, x_min), x_max + 1)  # noqa: E731
    low = clip(_first_at_least(act_min - offset + 1, multiplier, right))
    high = clip(_first_at_least(act_max - offset + 1, multiplier, right))
    if low >= high:
        return low, high, []
    xs = {low, high - 1}
    for n in range(act_min - offset + 2, act_max - offset + 1):
        x = _first_at_least(n, multiplier, right)
        if low < x < high:
            xs.update((x - 1, x))
    at = np.array(sorted(xs), np.int64)
    values = _f(at, multiplier, shift)
    return low, high, [(int(x), int(v)) for x, v in zip(at, values)]


def _solve(points: list[tuple[int, int]], mult: int, shift: int, offset: int) -> tuple[int, int] | None:
    """(c, j) with floor((x + c) * mult / 2^(32 + shift)) = f(x) + j at every point, j = offset mod 256, the
    smallest |j| first; None if none within TRIES steps."""
    unit = 2 ** (32 + shift)
    # (f + j) * unit <= (x + c) * mult < (f + j + 1) * unit  <=>  c * mult in [j * unit + lo, j * unit + hi)
    lo = max(f * unit - x * mult for x, f in points)
    hi = min((f + 1) * unit - x * mult for x, f in points)
    if lo >= hi:
        return None
    # j = offset + 256 t: a multiple of mult lies in [J + lo, J + hi) iff (J + lo) mod mult is 0 or above
    # mult - (hi - lo); J mod mult steps by 256 * unit mod mult, so all the t are tried at once.
    steps = np.arange(1, TRIES)
    t = np.concatenate([[0], np.stack([steps, -steps], axis=1).ravel()])  # the smallest |t| first
    start, step = (offset * unit + lo) % mult, (256 * unit) % mult
    rest = (start + step * t) % mult
    fits = (rest == 0) | (rest > mult - (hi - lo))
    if not fits.any():
        return None
    j = offset + 256 * int(t[int(np.argmax(fits))])
    c = -((-(j * unit + lo)) // mult)  # ceil
    assert c * mult < j * unit + hi
    return c, j


def single_stage(multiplier: int, shift: int, offset: int, act_min: int, act_max: int, x_min: int,
                 x_max: int) -> SingleStage | None:
    """A channel's one-multiply output stage for accumulators in [x_min, x_max], or None."""
    right = -shift
    if right < 1 or multiplier < 2**30:
        return None
    low, high, points = check_points(multiplier, shift, offset, act_min, act_max, x_min, x_max)
    candidates = [(m, 0) for m in ((multiplier >> (right - 1)) + d for d in (0, 1, -1, 2)) if 0 < m < 2**31]
    candidates.append((multiplier, right - 1))
    for mult, s in candidates:
        found = _solve(points, mult, s, offset) if points else (0, offset)
        if found is None:
            continue
        c, _ = found
        if not (INT32_MIN <= x_min + c and x_max + 1 + c <= INT32_MAX):
            continue
        return SingleStage(low + c, high + c, mult, s, c)
    return None


def single_output(stage: SingleStage, acc: np.ndarray, act_min: int, act_max: int) -> np.ndarray:
    """The kernel's output for accumulators `acc` (before `add`), as int8: what the assembly computes."""
    z = np.asarray(acc, np.int64) + stage.add
    g = (z * stage.multiplier) >> (32 + stage.shift)
    byte = ((g + 128) % 256) - 128
    return np.where(z < stage.low, act_min, np.where(z >= stage.high, act_max, byte)).astype(np.int8)
