"""mote_conv_pointwise_s8's record: a 1x1 convolution at stride 1 with few input channels on a scalar core.

Each output of such a layer has only in_ch taps (8 in the first pointwise layer of MobileNetV1 0.25, Visual Wake
Words' network), so the blocked kernel's output stage, ten instructions an output through TFLite's two roundings'
shortcuts, costs more than a tap pair's products. This kernel runs the same inner loop (four pixels by four output
channels, two taps per multiply, groups of four taps sharing a rounding where the weights allow: mote.ops.pair_groups)
and requantizes with one multiply (mote.ops.output_single): for each channel, its constants are found at compile
time and proven exact on every accumulator the layer can reach, so an output takes two compares, the high word of
one product and a byte store. A layer where a channel has no such constants (a left shift; accumulators too wide
for the constant to fit) keeps the blocked kernel.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mote.ints import ceil_div
from mote.ir import Node
from mote.ops.conv2d_kernels import blocked_overlap, pair_words, to_quads
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.output_single import SingleStage, single_stage
from mote.ops.pair_groups import pair_runs
from mote.ops.registry import CCall, Core, Emitter, Kernel

MAX_IN_CH = 16  # from 32 input channels on, the two roundings' cost is a small part of an output's
TAP = 128 * 127  # the largest magnitude of one product of an int8 input and a weight in [-127, 127]


@lru_cache(maxsize=4)
def _stages(p: ConvParams) -> tuple[SingleStage, ...] | None:
    """Each output channel's one-multiply stage, for accumulators within the folded bias +- in_ch products."""
    out = []
    for oc in range(p.out_ch):
        bias = int(p.folded[oc])
        stage = single_stage(int(p.multiplier[oc]), int(p.shift[oc]), p.output_offset, p.act_min, p.act_max,
                             bias - p.taps * TAP, bias + p.taps * TAP)
        if stage is None or stage.shift != 0:
            return None
        out.append(stage)
    return tuple(out)


def accepts(node: Node, p: ConvParams) -> str | None:
    if not p.pointwise:
        return "not 1x1 at stride 1"
    if p.groups != 1:
        return "groups != 1"
    if p.in_ch > MAX_IN_CH:
        return f"over {MAX_IN_CH} input channels"
    if int(p.weights.min(initial=0)) < -127:
        return "weights reach -128"
    if not fits_int32(max_abs(p.folded) + p.taps * TAP):
        return "accumulator may exceed int32"
    if _stages(p) is None:
        return "a channel's output needs TFLite's two roundings"
    return None


def pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    stages = _stages(p)
    assert stages is not None
    pairs = p.tap_pairs
    packed = to_quads(np.pad(p.weights.reshape(p.out_ch, -1), ((0, 0), (0, 2 * pairs - p.taps))))
    interleaved = pair_words(packed).reshape(ceil_div(p.out_ch, 4), 4, pairs).transpose(0, 2, 1)  # [quad][pair][ch]
    runs, run_start = pair_runs(packed)
    bias = p.folded.astype(np.int64) + np.array([s.add for s in stages], np.int64)
    rows = np.array([[s.low, s.high, s.multiplier, 0] for s in stages], np.int64)
    return CCall("mote_conv_pointwise_s8", "mote_conv_pointwise_params", {
        "pixels": p.batches * p.in_h * p.in_w, "in_ch": p.in_ch, "out_ch": p.out_ch, "pairs": pairs,
        "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(np.ascontiguousarray(interleaved), "weights"),
        "bias": em.const(to_quads(bias.astype(np.int32)), "single_bias"),
        "output_stage": em.const(to_quads(rows.astype(np.int32)), "single_stage"),
        "runs": em.const(runs, "pair_runs"), "run_start": em.const(run_start, "run_start"),
        "reverse": int(p.out_ch > p.in_ch)}, [em.tensor(x), em.tensor(node.outputs[0])])


def scratch_bytes(node: Node, p: ConvParams) -> int:
    return 16 * p.tap_pairs + 4 * p.out_ch


KERNEL = Kernel("mote_conv_pointwise_s8", frozenset({Core.SCALAR}), pack, accepts, scratch_bytes, blocked_overlap,
                twins=("mote_dot_pairs_single_4x4_s8",),
                scratch_why="a block of four pixels packed in tap pairs, and a short block's outputs")
