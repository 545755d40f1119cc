"""mote_conv_pointwise_s8's record: a 1x1 convolution at stride 1 with up to 64 input channels on a scalar core.

Each output of such a layer has only in_ch taps (8 in the first pointwise layer of MobileNetV1 0.25, Visual Wake
Words' network), so the blocked kernel's output stage, ten instructions an output through TFLite's two roundings'
shortcuts, costs more than a tap pair's products (and still a fifth of an output's work at 32 or 64 taps). This
kernel runs the same inner loop (four pixels by four output channels, two taps per multiply, groups of four taps
sharing a rounding where the weights allow: mote.ops.pair_groups), over four blocks of pixels per call, and
requantizes with one multiply (mote.ops.output_single): for each channel, its constants are found at compile time
and proven exact on every accumulator the layer can reach, so an output takes two compares, the high word of one
product and a byte store. A layer where a channel has no such constants (a left shift, clamps on both sides of the
output zero point, accumulators too wide for the constant to fit) keeps the blocked kernel. Legacy uint8 layers
whose weights have a zero point take the same loop on split weights (mote.ops.filter_offset_conv), each pixel's
sum of taps times the channel's sum scale at the start: mote_conv_offset_pointwise_s8.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from mote.ints import ceil_div
from mote.ir import Node
from mote.ops import filter_offset_conv
from mote.ops.conv2d_kernels import blocked_overlap, pair_words, to_quads
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import fits_int32, max_abs
from mote.ops.output_single import SingleStage, single_stage
from mote.ops.pair_groups import pair_runs
from mote.ops.registry import CCall, Core, Emitter, Kernel

MAX_IN_CH = 64  # past it, a layer's accumulators may need more than the constant leaves of int32; unmeasured
CHUNK = 4  # MOTE_CONV_POINTWISE_CHUNK in mote_conv_pointwise_s8.h: blocks of four pixels per inner-loop call
TAP = 128 * 127  # the largest magnitude of one product of an int8 input and a weight in [-127, 127]


@lru_cache(maxsize=4)
def _stages(p: ConvParams) -> tuple[SingleStage, ...] | None:
    """Each output channel's one-multiply stage, for accumulators within the folded bias +- in_ch products."""
    return _stages_around(p, p.folded, np.full(p.out_ch, p.taps * TAP))


def _stages_around(p: ConvParams, bias: np.ndarray, reach: np.ndarray) -> tuple[SingleStage, ...] | None:
    """Each output channel's one-multiply stage for accumulators in bias +- reach, or None if one has none."""
    out = []
    for oc in range(p.out_ch):
        stage = single_stage(int(p.multiplier[oc]), int(p.shift[oc]), p.output_offset, p.act_min, p.act_max,
                             int(bias[oc]) - int(reach[oc]), int(bias[oc]) + int(reach[oc]))
        if stage is None or stage.shift != 0:
            return None
        out.append(stage)
    return tuple(out)


def _few(p: ConvParams) -> str | None:
    if not p.pointwise:
        return "not 1x1 at stride 1"
    if p.groups != 1:
        return "groups != 1"
    return f"over {MAX_IN_CH} input channels" if p.in_ch > MAX_IN_CH else None


def accepts(node: Node, p: ConvParams) -> str | None:
    if reason := _few(p):
        return reason
    if int(p.weights.min(initial=0)) < -127:
        return "weights reach -128"
    if not fits_int32(max_abs(p.folded) + p.taps * TAP):
        return "accumulator may exceed int32"
    if _stages(p) is None:
        return "a channel's output needs TFLite's two roundings"
    return None


def _pack(node: Node, p: ConvParams, em: Emitter, taps: np.ndarray, stages: tuple[SingleStage, ...]) -> CCall:
    """The call with `taps` [out_ch][in_ch] as its weights and the int8 layer's bias (the folded one, each
    channel's stage constant added)."""
    x = node.inputs[0]
    assert x is not None
    pairs = p.tap_pairs
    packed = to_quads(np.pad(taps, ((0, 0), (0, 2 * pairs - p.taps))))
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
        "reverse": int(p.out_ch > p.in_ch), "terms": 0}, [em.tensor(x), em.tensor(node.outputs[0])])


def pack(node: Node, p: ConvParams, em: Emitter) -> CCall:
    stages = _stages(p)
    assert stages is not None
    return _pack(node, p, em, p.weights.reshape(p.out_ch, -1), stages)


def _split(p: ConvParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A uint8 layer's split weights (mote.ops.filter_offset_conv): v [out_ch][taps], the sum scales s and the
    biases, int64."""
    s = filter_offset_conv.sum_scales(p)
    v = p.weights.reshape(p.out_ch, -1).astype(np.int64) + p.filter_offset - s[:, None]
    return v, s, filter_offset_conv.offset_bias(p, s)


@lru_cache(maxsize=4)
def _offset_stages(p: ConvParams) -> tuple[SingleStage, ...] | None:
    _, s, bias = _split(p)
    return _stages_around(p, bias, p.taps * 128 * (128 + np.abs(s)))


def accepts_offset(node: Node, p: ConvParams) -> str | None:
    if reason := _few(p) or filter_offset_conv.accepts(node, p):
        return reason
    return "a channel's output needs TFLite's two roundings" if _offset_stages(p) is None else None


def pack_offset(node: Node, p: ConvParams, em: Emitter) -> CCall:
    stages = _offset_stages(p)
    assert stages is not None
    v, s, bias = _split(p)
    call = _pack(node, p, em, v, stages)
    both = np.stack([to_quads(bias + np.array([st.add for st in stages])).reshape(-1, 4),
                     to_quads(s).reshape(-1, 4)], axis=1).reshape(-1, 8)
    fields = {**call.fields, "bias": em.const(both.astype(np.int32), "offset_bias"), "terms": 1}
    return CCall("mote_conv_offset_pointwise_s8", call.params_type, fields, call.args)


def scratch_bytes(node: Node, p: ConvParams) -> int:
    """A chunk of blocks packed in tap pairs and their last set's outputs, a short block's outputs."""
    return CHUNK * (16 * p.tap_pairs + 16) + 4 * p.out_ch


KERNEL = Kernel("mote_conv_pointwise_s8", frozenset({Core.SCALAR}), pack, accepts, scratch_bytes, blocked_overlap,
                twins=("mote_dot_pairs_single_4x4_s8",),
                scratch_why="blocks of four pixels packed in tap pairs, and outputs of partial blocks")
OFFSET_KERNEL = Kernel("mote_conv_offset_pointwise_s8", frozenset({Core.SCALAR}), pack_offset, accepts_offset,
                       scratch_bytes, blocked_overlap, twins=("mote_dot_pairs_terms_single_4x4_s8",),
                       scratch_why="blocks of four pixels packed in tap pairs, and outputs of partial blocks")
