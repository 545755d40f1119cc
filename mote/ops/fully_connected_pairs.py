"""mote_fully_connected_pairs_s8: int8 FULLY_CONNECTED on scalar cores, two products per multiply.

The weights are packed at compile time as pair words w[o][2k] + w[o][2k + 1] * 2^16 (mote_pair_dot), per
block of sixteen output rows, their words matched in groups of two (match_words): a group shares one
rounding for its two words (mote_pair_dot2) when its four products fit 16 bits for every input in all
sixteen rows (mote.ops.pair_groups' bounds). Per group, the sixteen rows' first words, then their second;
the sharing groups first, and each group's two input words as byte offsets (unless matching gains
little over the consecutive words: then those, in order, pack_weights). The input is packed in pair
words on the stack (no static RAM). The kernel takes layers whose output depth is a multiple of 16, whose
accumulation depth is a multiple of 4 up to MAX_DEPTH, and whose weights lie in [-127, 127] (a pair's
products then stay in [-2^15, 2^15)); the blocked kernel takes the others.

The pair words take twice the flash of the int8 weights, so a layer whose words are over MAX_WORDS_BYTES is
taken only when its weights are small next to their rows' largest, measured as the share of its groups of
four consecutive inputs that fit 16 bits (shared_groups, at least SHARED_FRACTION): there the extra flash
buys the most instructions; the other large layers keep their int8 weights in the blocked kernel, and
models near their target's flash keep fitting it (the bundled language model's 512-wide MLP layers, all
doubled, would not fit rv32's 2 MiB; its down projections, 512 deep, measure 81-86 % and are taken).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ir import Node
from mote.ops.conv2d_kernels import pair_words
from mote.ops.output_stage import output_multipliers
from mote.ops.pair_groups import LIMIT, fits
from mote.ops.registry import CCall, Core, Emitter, Kernel

ROWS = 16  # output rows per block
GROUP = 4  # inputs per group: two pair words
MAX_DEPTH = 1024  # MOTE_FULLY_CONNECTED_PAIRS_MAX_DEPTH: the input packed on the stack, 2 bytes per value
MAX_WORDS_BYTES = 64 << 10  # the largest layer's pair words taken whatever its groups
MATCH_GAIN = 0.15  # the share of groups that matching must add to pay for its indexed loads
SHARED_FRACTION = 0.75  # the share of groups sharing roundings that a larger layer needs
# The functions below take mote.ops.fully_connected.FullyConnectedParams (typed Any: that module imports this one).


def pairs_reason(p: Any, max_depth: int) -> str | None:
    """Why a layer's products cannot be taken two per multiply in blocks of ROWS rows and GROUP inputs, with its
    input packed on the stack up to `max_depth` values (None: they can)."""
    if p.out_depth % ROWS:
        return f"output depth {p.out_depth} is not a multiple of {ROWS}"
    if p.accum_depth % GROUP:
        return f"accumulation depth {p.accum_depth} is not a multiple of {GROUP}"
    if p.accum_depth > max_depth:
        return f"accumulation depth {p.accum_depth} is over {max_depth} (its packed input is on the stack)"
    if int(p.weights.min(initial=0)) < -127:
        return "a weight is -128 (a pair of products could reach 2^15)"
    return None


def accepts(node: Node, p: Any) -> str | None:
    if reason := pairs_reason(p, MAX_DEPTH):
        return reason
    if 2 * p.weights.size > MAX_WORDS_BYTES and (shared := shared_groups(p.weights).mean()) < SHARED_FRACTION:
        return (f"its pair words would take {2 * p.weights.size} bytes of flash, over {MAX_WORDS_BYTES}, for "
                f"{shared:.0%} of groups sharing their roundings, under {SHARED_FRACTION:.0%}")
    return None


def shared_groups(weights: np.ndarray) -> np.ndarray:
    """weights: int8 [out_depth, accum_depth] (multiples of 16 and 4); whether each block's groups share, bool
    [blocks, groups]."""
    out_depth, depth = weights.shape
    return fits(np.asarray(weights, np.int64).reshape(out_depth // ROWS, ROWS, depth // GROUP, GROUP)).all(axis=1)


def match_words(block: np.ndarray) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """block: int [16, accum_depth], one block's weights. Its pair words matched in groups of two: those whose
    four products fit 16 bits in every row (mote.ops.pair_groups.fits), as many as a greedy matching finds (the
    word with the fewest partners first, each with its partner of fewest partners), then the others in order.
    Deterministic: ties go to the lower word index."""
    rows, depth = block.shape
    words = depth // 2
    w = np.asarray(block, np.int64).reshape(rows, words, 2)
    positive, negative = np.maximum(w, 0).sum(axis=-1), np.maximum(-w, 0).sum(axis=-1)  # [rows, words]
    p = positive[:, :, None] + positive[:, None, :]
    n = negative[:, :, None] + negative[:, None, :]
    ok = ((127 * p + 128 * n < LIMIT) & (128 * p + 127 * n <= LIMIT)).all(axis=0)  # pair_groups.fits' bounds
    np.fill_diagonal(ok, False)
    partners = ok.sum(axis=1)
    free = np.ones(words, bool)
    shared: list[tuple[int, int]] = []
    for i in np.argsort(partners, kind="stable"):
        if not free[i]:
            continue
        candidates = np.flatnonzero(ok[i] & free)
        if candidates.size:
            j = int(candidates[np.argmin(partners[candidates])])
            free[i] = free[j] = False
            shared.append((int(min(i, j)), int(max(i, j))))
    rest = np.flatnonzero(free).tolist()
    return shared, list(zip(rest[0::2], rest[1::2]))


def runs(shared: np.ndarray) -> list[int]:
    """shared: bool [groups] of one block, in order; its (sharing, not sharing) counts, in order."""
    counts = [[0, 0]]
    for share in shared:
        if share and counts[-1][1] > 0:
            counts.append([0, 0])
        counts[-1][0 if share else 1] += 1
    return [n for pair in counts for n in pair]


def pack_weights(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """weights: int8 [out_depth, accum_depth]; the pair words [blocks][groups][2][16], each group's input
    word offsets in bytes [blocks][groups][2] and the runs [blocks][2] (match_words), or, when matching
    shares under MATCH_GAIN more of the groups than the consecutive words do (the matched loop's indexed
    loads cost about 5 instructions a group), the consecutive words in order, no offsets, and their runs."""
    out_depth, depth = weights.shape
    w = np.asarray(weights, np.int64)
    blocks = [w[start:start + ROWS] for start in range(0, out_depth, ROWS)]
    matches = [match_words(block) for block in blocks]
    in_order = shared_groups(weights)
    if sum(len(shared) for shared, _ in matches) / in_order.size < in_order.mean() + MATCH_GAIN:
        words = pair_words(w.reshape(-1, ROWS, depth)).reshape(-1, ROWS, depth // GROUP, 2).transpose(0, 2, 3, 1)
        return (words.reshape(-1).astype(np.int32), None,
                np.array([n for block in in_order for n in runs(block)], np.uint16))
    all_words, offsets, block_runs = [], [], []
    for block, (shared, separate) in zip(blocks, matches):
        words = pair_words(block)  # [16, words]
        groups = shared + separate
        all_words += [words[:, [i, j]].T for i, j in groups]
        offsets += [4 * k for group in groups for k in group]
        block_runs += [len(shared), len(separate)]
    return (np.concatenate(all_words).reshape(-1).astype(np.int32), np.array(offsets, np.uint16),
            np.array(block_runs, np.uint16))


def block_fields(p: Any, em: Emitter, words: np.ndarray, offsets: np.ndarray | None,
                 runs: np.ndarray) -> dict[str, int | str]:
    """The params of a kernel taking its weights in blocks of ROWS rows (this one's pair words, or
    mote.ops.fully_connected_bytes's byte words): the layer's fields, the packed words with their runs and
    offsets, and the output stage."""
    left_mul, right_mul = output_multipliers(p.shift)
    return {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "filter_offset": p.filter_offset, "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "weights": em.const(words, "weights"), "runs": em.const(runs, "runs"),
        "offsets": "NULL" if offsets is None else em.const(offsets, "word_offsets"),
        "bias": em.const(p.folded_bias, "folded_bias"), "multiplier": em.const(p.multiplier, "multiplier"),
        "left_mul": em.const(left_mul, "left_mul"), "right_mul": em.const(right_mul, "right_mul")}


def pack(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields = block_fields(p, em, *pack_weights(p.weights))
    return CCall("mote_fully_connected_pairs_s8", "mote_fully_connected_pairs_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


KERNEL = Kernel("mote_fully_connected_pairs_s8", frozenset({Core.SCALAR}), pack, accepts=accepts)
