"""mote_fully_connected_bytes_s8: int8 FULLY_CONNECTED on scalar cores, two products per multiply from weights
kept one byte each.

mote_fully_connected_pairs_s8 multiplies pair words (w0 + w1 * 2^16) and takes twice the int8 weights' flash.
This kernel keeps one byte per weight: per block of sixteen output rows and per group of two input words
(matched as mote.ops.fully_connected_pairs.match_words matches them, so that nearly every group shares one
rounding), each row's four weights are one 32-bit word of the biased bytes u = w + 128 (in [1, 255]) ordered
[u(a0), u(b0), u(a1), u(b1)]: the mask 0x00FF00FF gives the pair word M_a = u(a0) + u(a1) * 2^16 in one
instruction and a shift and the mask give M_b. M = W + 128 * (1 + 2^16), and for the input word
X = x0 * 2^16 + x1, X * M = X * W + 128 * ((x0 + x1) * 2^16 + x1) modulo 2^32: the bias's share depends on the
input alone. The kernel packs, once per input, X and K = 2^14 - 128 * ((x0 + x1) * 2^16 + x1) (modulo 2^32)
per input word on the stack, so that X_a * M_a + X_b * M_b + K_a + K_b equals X_a * W_a + X_b * W_b + 2^15,
the value mote_pair_dot2 shifts: bit for bit the pairs kernel's sums, at two more instructions per four
products than it and four fewer than the blocked kernel, for the flash of the int8 weights.

It takes what the pairs kernel takes, with the accumulation depth up to MAX_DEPTH, and comes after it in the
kernel table: the layers the pairs kernel leaves for their flash (the bundled language model's 512-wide MLP).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ir import Node
from mote.ops.fully_connected_pairs import ROWS, block_fields, match_words, pairs_reason
from mote.ops.registry import CCall, Core, Emitter, Kernel

MAX_DEPTH = 512  # MOTE_FULLY_CONNECTED_BYTES_MAX_DEPTH: 4 bytes of stack per input value
BIAS = 128  # u = w + BIAS fits a byte for w in [-127, 127]
# The functions below take mote.ops.fully_connected.FullyConnectedParams (typed Any: that module imports this one).


def accepts(node: Node, p: Any) -> str | None:
    return pairs_reason(p, MAX_DEPTH)


def byte_words(rows: np.ndarray, a: int, b: int) -> np.ndarray:
    """rows: int [16, accum_depth]; the group of input words a and b as one uint32 per row: the biased bytes
    [u(2a), u(2b), u(2a + 1), u(2b + 1)], little-endian."""
    u = np.asarray(rows, np.int64) + BIAS
    return (u[:, 2 * a] | u[:, 2 * b] << 8 | u[:, 2 * a + 1] << 16 | u[:, 2 * b + 1] << 24).astype(np.uint32)


def pack_weights(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """weights: int8 [out_depth, accum_depth] (multiples of 16 and 4); the words [blocks][groups][16], each
    group's two input words as byte offsets into the kernel's input table (8 bytes a word) [blocks][groups][2]
    and per block (groups sharing one rounding, groups not), the sharing ones first (match_words)."""
    out_depth, _ = weights.shape
    words, offsets, runs = [], [], []
    for start in range(0, out_depth, ROWS):
        block = np.asarray(weights[start:start + ROWS], np.int64)
        shared, separate = match_words(block)
        for a, b in shared + separate:
            words.append(byte_words(block, a, b))
            offsets += [8 * a, 8 * b]
        runs += [len(shared), len(separate)]
    return np.concatenate(words), np.array(offsets, np.uint16), np.array(runs, np.uint16)


def pack(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields = block_fields(p, em, *pack_weights(p.weights))
    return CCall("mote_fully_connected_bytes_s8", "mote_fully_connected_bytes_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


KERNEL = Kernel("mote_fully_connected_bytes_s8", frozenset({Core.SCALAR}), pack, accepts=accepts)
