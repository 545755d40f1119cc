"""mote_depthwise_conv_packed_band_s8: a depthwise convolution the band kernels take (mote.ops.depthwise_band:
3x3, depth multiplier 1, undilated, one image), its sub-byte weights kept packed in flash and unpacked once
into scratch as the int8 weights those kernels read, for scalar cores. A depthwise layer's filters are nine
values a channel, so the scratch is small; the band kernel (the one-multiply one where the output stage allows)
then runs as on int8 weights. Ahead of mote_depthwise_conv_packed_s8 (mote.ops.subbyte_kernels), which takes
any geometry."""

from __future__ import annotations

import numpy as np

from mote.c_text import c_struct
from mote.ir import DType, Node, subbyte
from mote.ops import depthwise_band
from mote.ops.depthwise_band import _accepts as band_accepts
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.ops.subbyte_kernels import _accepts, narrow, weight_bits


def _pack(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    single = depthwise_band.single_stages(p)
    band = depthwise_band.pack_band(node, p, em, single=single)
    weights = depthwise_band.frame(p).weights.reshape(9, -1).T  # [channels][9] in frame order
    bits = weight_bits(node)
    packed = np.frombuffer(subbyte.pack(weights.reshape(-1), bits, f"node {node.name!r}"), np.uint8).copy()
    fields: dict[str, int | str] = {"band": c_struct({**band.fields, "weights": "NULL"}), "bits": bits,
                                    "weights": em.const(packed, "packed_weights"), "run": band.func}
    return CCall("mote_depthwise_conv_packed_band_s8", "mote_depthwise_conv_packed_band_params", fields, band.args)


def _accepts_band(node: Node, p: DepthwiseParams) -> str | None:
    return _accepts(node, p) or band_accepts(node, p)


def _scratch(node: Node, p: DepthwiseParams) -> int:
    return 9 * p.in_ch  # the unpacked weights


KERNEL = Kernel("mote_depthwise_conv_packed_band_s8", frozenset({Core.SCALAR}), _pack, accepts=_accepts_band,
                scratch_bytes=_scratch, twins=("mote_depthwise_band_s8", "mote_depthwise_band_single_s8"),
                scratch_why="the layer's filters, unpacked", dtypes=frozenset({DType.INT8}), kind=narrow)
