"""mote_fully_connected_row_pairs_s8: int8 FULLY_CONNECTED on scalar cores, two rows' products per multiply.

The weights are packed at compile time as row-pair words W = w[2j][d] + w[2j + 1][d] * 2^16 (an odd last row
paired with zeros), in blocks of up to PAIRS pairs, [block][accum_depth][pairs of the block]. For two inputs the
kernel sums u * W[d] + v * W[d + 1] = S0 + S1 * 2^16 and takes S1 with one rounding shift; the words summed over
the row give S0's total once S1's is taken out (mote_fully_connected_row_pairs_s8.h). That is exact where each
row's two-term sums lie in [-2^15, 2^15) for every input (`fits`), which int8 weights in [-127, 127] always
do. Per two inputs and two rows: two weight words, two multiplies and five adds and shifts, the two input bytes
loaded once for up to eight rows: about 2.4 instructions per MAC against the blocked kernel's 3.5 on a few
rows, where the pairs kernel (output depths in sixteens) does not take the layer.

The words take twice the int8 weights' flash: a layer whose words are over MAX_WORDS_BYTES keeps the blocked
kernel. The output stage is the table with exact shortcuts (mote_output_channel_at): a few instructions an
output for most.

The same loops run a 1x1 convolution of a single output pixel, a fully connected layer written as a convolution
(mote_conv_row_pairs_s8; a legacy uint8 model's logits: its in_ch inputs the accumulation depth, the filter
offset applied as the fully connected kernel applies it), where the convolution kernels' per-call and
per-pixel costs would dominate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.conv2d_params import ConvParams
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel

PAIRS = 4  # row pairs per block: MOTE_RP_PAIRS's four steps
MAX_WORDS_BYTES = 64 << 10
# The functions below take mote.ops.fully_connected.FullyConnectedParams (typed Any: that module imports this one).


def padded_rows(weights: np.ndarray) -> np.ndarray:
    """int8 [out_depth, accum_depth] as int64 with a row of zeros appended to an odd count."""
    w = np.asarray(weights, np.int64)
    return np.concatenate([w, np.zeros((len(w) % 2, w.shape[1]), np.int64)])


def fits(weights: np.ndarray) -> bool:
    """Whether every row's sum over each two consecutive inputs (from the first; a last one alone) lies in
    [-2^15, 2^15) for every int8 input."""
    w = padded_rows(weights)
    w = np.concatenate([w, np.zeros((len(w), w.shape[1] % 2), np.int64)], axis=1).reshape(len(w), -1, 2)
    high = np.where(w >= 0, 127 * w, -128 * w).sum(axis=-1)
    low = np.where(w >= 0, -128 * w, 127 * w).sum(axis=-1)
    return bool((high < 1 << 15).all() and (low >= -(1 << 15)).all())


def pack_words(weights: np.ndarray) -> np.ndarray:
    """The row-pair words, int32 [blocks][accum_depth][pairs of the block], flat."""
    w = padded_rows(weights)
    words = (w[0::2] + w[1::2] * 65536).astype(np.int64)  # [pairs, depth]
    blocks = [words[q:q + PAIRS].T for q in range(0, len(words), PAIRS)]
    packed = np.concatenate([b.reshape(-1) for b in blocks])
    return ((packed + 2**31) % 2**32 - 2**31).astype(np.int32)


def _reason(weights: np.ndarray) -> str | None:
    words_bytes = 4 * ceil_div(weights.shape[0], 2) * weights.shape[1]
    if words_bytes > MAX_WORDS_BYTES:
        return f"its row-pair words would take {words_bytes} bytes of flash, over {MAX_WORDS_BYTES}"
    if not fits(weights):
        return "two weights of a row reach -128 together (a two-term sum could leave 16 bits)"
    return None


def accepts(node: Node, p: Any) -> str | None:
    return _reason(p.weights)


def _fields(em: Emitter, p: Any, batches: int, depth: int, channels: int, weights: np.ndarray,
            bias: np.ndarray) -> dict[str, int | str]:
    return {"batches": batches, "accum_depth": depth, "out_depth": channels, "filter_offset": p.filter_offset,
            "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
            "weights": em.const(pack_words(weights), "weights"),
            "bias": em.const(np.concatenate([bias, np.zeros(len(bias) % 2, bias.dtype)]), "folded_bias"),
            "output_stage": output_stage(em, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)}


def pack(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields = _fields(em, p, p.batches, p.accum_depth, p.out_depth, p.weights, p.folded_bias)
    return CCall("mote_fully_connected_row_pairs_s8", "mote_fully_connected_row_pairs_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _conv_bias(p: ConvParams) -> np.ndarray:
    """The fully connected kernel's folded bias for the pointwise convolution: bias + input_offset * sum(w)
    + in_ch * filter_offset * input_offset, int64."""
    return p.folded + p.in_ch * p.filter_offset * p.input_offset


def accepts_conv(node: Node, p: ConvParams) -> str | None:
    if not p.pointwise or p.groups != 1:
        return "not an ungrouped 1x1 convolution at stride 1"
    if p.batches * p.out_h * p.out_w != 1:
        return "more than one output pixel"
    if p.output_rows is not None:
        return "a RequantShift output stage"
    bias = _conv_bias(p)
    if bias.min(initial=0) < -(2**31) or bias.max(initial=0) >= 2**31:
        return "its folded bias leaves int32"
    return _reason(p.weights.reshape(p.out_ch, p.in_ch))


def pack_conv(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields = _fields(em, p, 1, p.in_ch, p.out_ch, p.weights.reshape(p.out_ch, p.in_ch),
                     _conv_bias(p).astype(np.int32))
    return CCall("mote_conv_row_pairs_s8", "mote_fully_connected_row_pairs_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def one_pixel_1x1(node: Node) -> bool:
    """A convolution that is a fully connected layer written as one: a 1x1 filter, one output pixel (the only
    convolutions the row-pairs record is for; others do not list it as declining)."""
    w, y = node.inputs[1], node.outputs[0]
    return w is not None and tuple(w.shape[1:3]) == (1, 1) and int(np.prod(y.shape[:-1])) == 1


KERNEL = Kernel("mote_fully_connected_row_pairs_s8", frozenset({Core.SCALAR}), pack, accepts=accepts)
CONV_KERNEL = Kernel("mote_conv_row_pairs_s8", frozenset({Core.SCALAR}), pack_conv, accepts_conv,
                     dtypes=frozenset({DType.INT8}), kind=one_pixel_1x1)
