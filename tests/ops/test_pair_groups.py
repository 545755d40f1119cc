"""Which groups of four taps share a rounding: the weight bound against every extreme input, the
shared rounding's arithmetic against exact sums, and the runs and kinds the kernels read."""

from __future__ import annotations

import itertools

import numpy as np

from mote.ops.pair_groups import GROUP_BYTES, RING_KINDS, fits, pair_runs, ring_kinds

CORNERS = np.array(list(itertools.product([-128, 127], repeat=4)))  # the extremes of a linear form


def groups(rng: np.random.Generator, n: int) -> np.ndarray:
    """Groups of four weights around the bound: scaled so that sum |w| * 128 lands near 2^15."""
    w = rng.integers(-127, 128, (n, 4))
    target = rng.integers(200, 320, n)
    scale = target / np.maximum(np.abs(w).sum(axis=1), 1)
    return np.clip(np.round(w * scale[:, None]), -127, 127).astype(np.int64)


def test_fits_is_the_16_bit_range_over_every_input() -> None:
    w = groups(np.random.default_rng(0), 20000)
    sums = w @ CORNERS.T  # [groups, corners]
    exact = (sums.min(axis=1) >= -(2**15)) & (sums.max(axis=1) < 2**15)
    assert exact.any() and not exact.all()
    assert np.array_equal(fits(w), exact)


def pair_dot2(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """mote_pair_dot2 in uint32 arithmetic: x, w int [..., 4] as the two packed pairs of each."""
    def word(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return (lo + hi * 65536).astype(np.int64) & 0xFFFFFFFF

    x0, x1 = word(x[..., 1], x[..., 0]), word(x[..., 3], x[..., 2])  # X = x0 * 2^16 + x1
    w0, w1 = word(w[..., 0], w[..., 1]), word(w[..., 2], w[..., 3])  # W = w0 + w1 * 2^16
    total = (x0 * w0 + x1 * w1 + 32768) & 0xFFFFFFFF
    return total.astype(np.uint32).view(np.int32) >> 16


def test_shared_rounding_is_exact_where_the_group_fits() -> None:
    rng = np.random.default_rng(1)
    w = groups(rng, 4000)
    x = np.concatenate([np.broadcast_to(CORNERS, (len(w), 16, 4)),
                        rng.integers(-128, 128, (len(w), 64, 4))], axis=1)  # [groups, inputs, 4]
    got, want = pair_dot2(x, w[:, None]), (x * w[:, None]).sum(axis=-1)
    ok = fits(w)
    assert np.array_equal(got[ok], want[ok])
    assert (got[~ok] != want[~ok]).any(axis=1).all()  # each group that does not fit wraps at a corner


def test_pair_runs_alternate_shared_and_separate_groups() -> None:
    rng = np.random.default_rng(2)
    quads, count = 5, 7
    shared = rng.integers(0, 2, (quads, count)).astype(bool)
    shared[0], shared[1] = True, False
    taps = rng.integers(-15, 16, (quads, 4, count, 4))
    for q, g in zip(*np.nonzero(~shared)):
        taps[q, 1, g] = 127  # one filter of the quad too large: the group keeps its roundings
    runs, starts = pair_runs(taps.reshape(quads * 4, count * 4))
    assert starts[0] == 0 and np.all(np.diff(starts) > 0)
    for q in range(quads):
        mine = runs[starts[q]:starts[q + 1] if q + 1 < quads else len(runs)]
        assert len(mine) % 2 == 0 and np.all(mine % GROUP_BYTES == 0)
        # Runs come in pairs, shared then separate; only the first shared and the last separate may be empty.
        assert np.all(mine[2::2] > 0) and np.all(mine[1:-1:2] > 0)
        decoded = [i % 2 == 0 for i, n in enumerate(mine) for _ in range(n // GROUP_BYTES)]
        assert decoded == shared[q].tolist()


def test_ring_kinds_take_the_first_pair_of_columns_that_fits() -> None:
    rng = np.random.default_rng(3)
    for stride in (1, 2):
        quads, fh, ic = 6, 3, 8
        w = rng.integers(-90, 91, (quads * 4, fh, 3, ic))
        kinds = ring_kinds(w, stride)
        assert set(np.unique(kinds)) == set(range(len(RING_KINDS[stride])))
        for q, y, j in itertools.product(range(quads), range(fh), range(ic // 2)):
            filters = w[4 * q:4 * q + 4, y, :, 2 * j:2 * j + 2]  # [4, column, 2]
            want = next((k for k, cols in enumerate(RING_KINDS[stride]) if cols is not None
                         and fits(np.concatenate([filters[:, cols[0]], filters[:, cols[1]]], axis=-1)).all()), 0)
            assert kinds[q, y, j] == want
