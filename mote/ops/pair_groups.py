"""Which groups of four taps may share one rounding in the scalar kernels' paired products.

The kernels multiply two int8 taps at once (mote_pair_dot: a tap pair's products in the high half of
one 32-bit product) and round each product's high half out. Two such products can share the
rounding (mote_pair_dot2) when the sum of their four products fits 16 bits for every input: the
high half then holds it exactly, and the low halves' sum, at most 2 * 128 * 127 in magnitude, stays
below the rounding bit. That is a property of the weights alone, known at compile time: with int8
inputs in [-128, 127], a filter's four products lie in [-sum(128 w+ + 127 w-), sum(127 w+ + 128 w-)]
(w+ the positive weights, w- the magnitudes of the negative ones). The kernels run four filters at a
time, so a group shares its roundings when that holds for the four of them.
"""

from __future__ import annotations

import numpy as np

LIMIT = 2**15  # the high half's range: [-2^15, 2^15)
GROUP_BYTES = 32  # a group's input words in mote_dot_pairs_4x4_s8: two pairs of four pixels


def fits(weights: np.ndarray) -> np.ndarray:
    """weights: int [..., 4] (a group's four taps of a filter); whether their products fit 16 bits."""
    w = np.asarray(weights, np.int64)
    positive, negative = np.maximum(w, 0).sum(axis=-1), np.maximum(-w, 0).sum(axis=-1)
    return (127 * positive + 128 * negative < LIMIT) & (128 * positive + 127 * negative <= LIMIT)


def pair_runs(taps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """taps: int [quads * 4, 4 * groups] in packed order (group g is taps 4g .. 4g + 3). Returns the
    runs of mote_dot_pairs_4x4_s8 for all quads, one after the other, and where each quad's start:
    the input bytes of a run of groups sharing roundings, then of a run not, and so on."""
    quads = taps.shape[0] // 4
    shared = fits(np.asarray(taps).reshape(quads, 4, -1, 4)).all(axis=1)  # [quads, groups]
    runs: list[int] = []
    starts = []
    for row in shared:
        starts.append(len(runs))
        lengths = [[0, 0]]
        for share in row:
            if share and lengths[-1][1] > 0:
                lengths.append([0, 0])
            lengths[-1][0 if share else 1] += 1
        runs += [GROUP_BYTES * n for pair in lengths for n in pair]
    return np.array(runs, np.int32), np.array(starts, np.int32)


# mote_dot_ring_4x4_s8's kinds: the filter columns that share roundings, by stride.
RING_KINDS = {1: [None, (0, 1), (1, 2)], 2: [None, (0, 2)]}


def ring_kinds(weights: np.ndarray, stride: int) -> np.ndarray:
    """weights: int [quads * 4, filter_h, 3, in_ch] (in_ch even); returns the kind of each quad's
    filter row and channel pair, int [quads, filter_h, in_ch / 2]: the first of RING_KINDS[stride]
    whose two columns fit for the four filters, else 0."""
    oc, fh, _, ic = weights.shape
    w = np.asarray(weights, np.int64).reshape(oc // 4, 4, fh, 3, ic // 2, 2)
    kinds = np.zeros((oc // 4, fh, ic // 2), np.int32)
    for kind in range(len(RING_KINDS[stride]) - 1, 0, -1):
        a, b = RING_KINDS[stride][kind]
        group = np.concatenate([w[:, :, :, a], w[:, :, :, b]], axis=-1)  # [quads, 4, fh, pairs, 4]
        kinds = np.where(fits(group).all(axis=1), kind, kinds)
    return kinds
