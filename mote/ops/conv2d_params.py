"""The compile-time constants of one CONV_2D layer (mote.ops.conv2d prepares them, its kernel
records in mote.ops.conv2d_kernels pack them)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mote.ints import round_up
from mote.ops.conv_common import fold_bias


@dataclass(frozen=True, eq=False)
class ConvParams:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    filter_in_ch: int  # groups = in_ch / filter_in_ch
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
    weights: np.ndarray  # int8 [out_ch, filter_h, filter_w, filter_in_ch]
    bias: np.ndarray | None  # int32 [out_ch]
    multiplier: np.ndarray  # int32 [out_ch], Q31
    shift: np.ndarray  # int32 [out_ch], > 0 means left
    filter_offset: int = 0  # -weights zero point: nonzero only in legacy uint8 models (mote_conv_offset_s8)
    # The scalar kernels' output-stage table when it is not TFLite's requantization (multiplier, shift):
    # a RequantShift's rows (mote.ops.requant_stage), [out_ch][MOTE_OUTPUT_STAGE_WORDS].
    output_rows: np.ndarray | None = None

    @property
    def groups(self) -> int:
        return self.in_ch // self.filter_in_ch

    @property
    def taps(self) -> int:
        return self.filter_h * self.filter_w * self.filter_in_ch

    @property
    def tap_pairs(self) -> int:
        """The blocked kernel's window in tap pairs: taps rounded up to a multiple of 4, halved."""
        return round_up(self.taps, 4) // 2

    @property
    def padded_taps(self) -> int:
        """The im2col kernel's window length: taps rounded up to a multiple of 16."""
        return round_up(self.taps, 16)

    @property
    def pointwise(self) -> bool:
        """1x1 at stride 1: a pixel's window is its own channels (no padding; dilation is moot)."""
        return self.filter_h == self.filter_w == 1 and self.stride_h == self.stride_w == 1

    @cached_property
    def folded(self) -> np.ndarray:
        """int64 bias + input_offset * sum(weights[oc]): the bias of a window without padding taps,
        whose inner loop then multiplies the raw int8 input (every kernel but the generic one)."""
        return fold_bias(self.bias, self.weights, self.input_offset)


GEOMETRY = ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "stride_h",
            "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left")
QUANT = ("input_offset", "output_offset", "act_min", "act_max")
