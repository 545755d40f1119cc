"""Sliding windows, for every op that has them: their geometry from the node's attributes, the numpy
gathers of the reference semantics (zero-padded for the convolutions, masked for the pools) and the
range of outputs whose windows lie wholly inside the input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.ints import ceil_div
from mote.ir import Node
from mote.ops.common import out_size_and_pad
from mote.ops.registry import attr


@dataclass(frozen=True)
class WindowGeometry:
    """(rows, columns) of each: as the node's stride, dilation and padding give them for an input."""

    stride: tuple[int, int]
    dilation: tuple[int, int]
    out: tuple[int, int]
    pad: tuple[int, int]  # top, left


def window_geometry(node: Node, in_hw: tuple[int, int], filt_hw: tuple[int, int]) -> WindowGeometry:
    """The output size and leading padding of a SAME/VALID window op over an input of `in_hw`."""
    stride, dilation, padding = attr(node, "stride"), attr(node, "dilation"), attr(node, "padding")
    oh, pad_top = out_size_and_pad(in_hw[0], filt_hw[0], stride[0], dilation[0], padding)
    ow, pad_left = out_size_and_pad(in_hw[1], filt_hw[1], stride[1], dilation[1], padding)
    return WindowGeometry((int(stride[0]), int(stride[1])), (int(dilation[0]), int(dilation[1])), (oh, ow),
                          (pad_top, pad_left))


def window_taps(out_hw: tuple[int, int], filt: tuple[int, int], stride: tuple[int, int],
                dilation: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The padded-input rows [oh, fh] and columns [ow, fw] each output's taps read."""
    rows = np.arange(out_hw[0])[:, None] * stride[0] + np.arange(filt[0])[None, :] * dilation[0]
    cols = np.arange(out_hw[1])[:, None] * stride[1] + np.arange(filt[1])[None, :] * dilation[1]
    return rows, cols


def zero_padded_windows(x: np.ndarray, out_hw: tuple[int, int], filt: tuple[int, int], stride: tuple[int, int],
                        dilation: tuple[int, int], pad: tuple[int, int]) -> np.ndarray:
    """x [n, h, w, c] (already offset) as windows [n, oh, ow, fh, fw, c]; taps outside the input read 0."""
    n, h, w, c = x.shape
    rows, cols = window_taps(out_hw, filt, stride, dilation)
    padded = np.zeros((n, max(pad[0] + h, int(rows.max(initial=0)) + 1),
                       max(pad[1] + w, int(cols.max(initial=0)) + 1), c), dtype=np.int64)
    padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w, :] = x
    return padded[:, rows[:, None, :, None], cols[None, :, None, :], :]


def layer_windows(p: Any, x: np.ndarray) -> np.ndarray:
    """x + p.input_offset as zero-padded windows of a convolution layer's params `p` (ConvParams and the
    like: fields out_h/out_w, filter_h/filter_w, stride_h/stride_w, dilation_h/dilation_w, pad_top/pad_left);
    padding taps are skipped by TFLite, i.e. contribute 0 after the offset."""
    return zero_padded_windows(np.asarray(x, np.int64) + p.input_offset, (p.out_h, p.out_w), (p.filter_h, p.filter_w),
                               (p.stride_h, p.stride_w), (p.dilation_h, p.dilation_w), (p.pad_top, p.pad_left))


def grouped_conv(windows: np.ndarray, weights: np.ndarray, groups: int) -> np.ndarray:
    """int64 sums of windows [n, oh, ow, fh, fw, in_ch] times weights [out_ch, fh, fw, in_ch / groups],
    each group of output channels over its own slice of the input channels: [n, oh, ow, out_ch]."""
    per_in, per_out = windows.shape[-1] // groups, weights.shape[0] // groups
    w = weights.astype(np.int64)
    return np.concatenate([np.einsum("nyxijc,oijc->nyxo", windows[..., g * per_in:(g + 1) * per_in],
                                     w[g * per_out:(g + 1) * per_out]) for g in range(groups)], axis=-1)


def masked_windows(x: np.ndarray, out_hw: tuple[int, int], filt: tuple[int, int], stride: tuple[int, int],
                   pad: tuple[int, int]) -> np.ma.MaskedArray:
    """x [n, h, w, c] as windows [n, oh, ow, fh, fw, c] (int32), taps outside the input masked."""
    n, h, w, c = x.shape
    rows, cols = window_taps(out_hw, filt, stride, (1, 1))
    padded = np.ma.masked_all((n, max(pad[0] + h, int(rows.max(initial=0)) + 1),
                               max(pad[1] + w, int(cols.max(initial=0)) + 1), c), dtype=np.int32)
    padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w, :] = x
    return padded[:, rows[:, None, :, None], cols[None, :, None, :], :]


def interior(out_size: int, in_size: int, stride: int, pad: int, extent: int) -> tuple[int, int]:
    """The output range [lo, hi) whose windows (`extent` input pixels) lie wholly inside the input."""
    lo = ceil_div(pad, stride)  # first o with o * stride - pad >= 0
    hi = (in_size - extent + pad) // stride + 1 if in_size - extent + pad >= 0 else 0  # o * stride - pad + extent <= in
    lo, hi = min(lo, out_size), min(hi, out_size)
    return lo, max(lo, hi)
