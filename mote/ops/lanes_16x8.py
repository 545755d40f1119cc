"""The 16x8 kernels for hosts with SIMD (Core.VECTOR, Core.VNNI), records that lead the 16x8 rows of the
conv2d and fully_connected tables before the generic kernels (mote.ops.weighted_16x8):

  mote_conv_lanes_s16  an ungrouped convolution: each pixel's output channels eight lanes at a time
                       with int16 weights (a loop gcc -O2 vectorizes whatever the channel count), the
                       taps inside the input walked as one run per filter row.

They take what the scalar cores' blocked kernels take (mote.ops.blocked_16x8: int32 partial sums, an int64
bias or none, the requantization in the output stage's range) and requantize through the same table rows
(mote.ops.stage_16x8), without a 64-bit multiply for most clamped outputs.
"""

from __future__ import annotations

import numpy as np

from mote.c_text import c_struct
from mote.ints import ceil_div
from mote.ir import DType, Node
from mote.ops.blocked_16x8 import accepts_conv, stage_rows
from mote.ops.conv2d_params import GEOMETRY
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.ops.weighted_16x8 import Wide

LANES = 8  # the C kernels' innermost trip count


def _lanes(channels: int) -> int:
    return ceil_div(channels, LANES) * LANES


def _pack_conv(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    lanes = _lanes(p.out_ch)
    weights = np.zeros((p.filter_h, p.filter_w, p.in_ch, lanes), np.int16)
    weights[..., :p.out_ch] = np.asarray(p.weights).reshape(p.out_ch, p.filter_h, p.filter_w, p.in_ch) \
        .transpose(1, 2, 3, 0)
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_conv_lanes_s16", "mote_conv_lanes_s16_params", {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "lanes": lanes,
        "act_min": p.act_min, "act_max": p.act_max, "weights": em.const(weights, "weights"),
        "stage": em.const(stage_rows(w, p.weights, 0, p.out_ch), "output_stage")},
        [em.tensor(x), em.tensor(node.outputs[0])])


def _conv_scratch(node: Node, w: Wide) -> int:
    return 4 * _lanes(w.layer.out_ch)


_HOST = frozenset({Core.VECTOR, Core.VNNI})
_INT16 = frozenset({DType.INT16})
CONV_KERNEL = Kernel("mote_conv_lanes_s16", _HOST, _pack_conv, accepts_conv, _conv_scratch, dtypes=_INT16,
                     scratch_why="one pixel's accumulators, eight lanes at a time")
