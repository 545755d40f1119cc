"""The compile-time constants of one DEPTHWISE_CONV_2D layer (mote.ops.depthwise_conv2d prepares them, its
kernel records, there and in mote.ops.depthwise_plane, pack them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
