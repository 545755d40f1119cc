"""The compile-time constants of one DEPTHWISE_CONV_2D layer (mote.ops.depthwise_conv2d prepares them, its
kernel records, there and in mote.ops.depthwise_plane, pack them)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mote.ops.conv_common import fits_int32, fold_bias, max_abs


@dataclass(frozen=True, eq=False)
class DepthwiseParams:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    depth_multiplier: int  # out_ch = in_ch * depth_multiplier
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_top: int
    pad_left: int
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    act_min: int
    act_max: int
    weights: np.ndarray  # int8 [filter_h, filter_w, out_ch]
    bias: np.ndarray | None  # int32 [out_ch]
    multiplier: np.ndarray  # int32 [out_ch], Q31
    shift: np.ndarray  # int32 [out_ch], > 0 means left
    folded_bias: np.ndarray | None  # bias + input_offset * sum of the 9 taps; set iff the 3x3 path applies
    filter_offset: int = 0  # -weights zero point: nonzero only in legacy uint8 models (mote_depthwise_conv_offset_s8)

    @property
    def out_ch(self) -> int:
        return self.in_ch * self.depth_multiplier


def wide_weights(p: DepthwiseParams) -> np.ndarray:
    """int64 [fh, fw, out_ch]: w + filter_offset, the weights as TFLite's uint8 kernel took them."""
    return p.weights.astype(np.int64) + p.filter_offset


def widened(p: DepthwiseParams) -> DepthwiseParams | None:
    """A 3x3 layer whose weights have a zero point as one without: its weights w + filter_offset (in [-255,
    255], int64) and their folded bias, for the kernels that keep a channel's nine weights in registers; None
    when a window's accumulator, |folded bias| + 9 * 128 * 255 at most, may exceed int32."""
    wide = wide_weights(p)
    folded = fold_bias(p.bias, wide.reshape(9, -1).T, p.input_offset)
    if not fits_int32(max_abs(folded) + 9 * 128 * 255):
        return None
    return replace(p, weights=wide, folded_bias=folded.astype(np.int32), filter_offset=0)
