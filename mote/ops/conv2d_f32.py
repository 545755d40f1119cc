"""CONV_2D in float32, and what the float window convolutions share (depthwise_conv2d_f32 too).

Bit-exact with TFLite Micro's float reference Conv: each output sums w * x from 0 over its window's
taps inside the input, in the order filter row, filter column, input channel; the bias (0 when
absent) is added after the sum, then the fused activation clamps. Grouped filters as in int8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.c_text import c_struct
from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.conv2d_params import GEOMETRY
from mote.ops.float_common import (
    accumulate_taps,
    c_float,
    clamp,
    float_activation,
    float_constant,
    float_data,
    float_range,
)
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.ops.windows import window_geometry


@dataclass(frozen=True, eq=False)
class FloatWindowParams:
    """A float convolution's geometry (names as mote_conv_geometry), its weights, bias and clamp."""

    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_top: int
    pad_left: int
    act_min: float
    act_max: float
    weights: np.ndarray  # float32 as the model has them: conv OHWI, depthwise 1HW(C*M)
    bias: np.ndarray  # float32 [out_ch], zeros when the model has none
    filter_in_ch: int = 1  # conv: groups = in_ch / filter_in_ch
    depth_multiplier: int = 1  # depthwise


def check_window_layer(node: Node) -> tuple[Tensor, Tensor]:
    """A float convolution's input, filter, optional bias and output: 4-D, constant filter and bias."""
    checks.input_count(node, 2, 3)
    x = float_activation(node, node.inputs[0] if node.inputs else None, "input")
    out = float_activation(node, node.outputs[0], "output")
    checks.activation(node)
    w = float_constant(node, 1, "filter")
    assert w is not None
    checks.rank(node, x, "input", 4)
    checks.rank(node, w, "filter", 4)
    checks.rank(node, out, "output", 4)
    return x, w


def check_bias(node: Node, channels: int) -> None:
    bias = float_constant(node, 2, "bias", optional=True)
    if bias is not None and bias.size != channels:
        raise checks.fail(node, f"the bias {bias.name!r} has {bias.size} values for {channels} output channels")


def check(node: Node) -> None:
    x, w = check_window_layer(node)
    c, (oc, fh, fw, fic) = x.shape[3], w.shape
    if fic == 0 or c % fic or oc % (c // fic):
        raise checks.fail(node, f"filter input depth {fic} and output depth {oc} do not divide the input depth {c} "
                                "into groups")
    check_bias(node, oc)
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    checks.window_budget(node, x.shape[0] * oh * ow * fh * fw * c)


def window_params(node: Node, filt_hw: tuple[int, int], out_ch: int, **extra: int) -> FloatWindowParams:
    x = node.inputs[0]
    weights = float_data(node.inputs[1])
    assert x is not None and weights is not None
    n, h, w, c = x.shape
    g = window_geometry(node, (h, w), filt_hw)
    bias = float_data(node.inputs[2] if len(node.inputs) > 2 else None)
    bias = np.zeros(out_ch, np.float32) if bias is None else bias.reshape(-1)
    lo, hi = float_range(node)
    return FloatWindowParams(n, h, w, c, *g.out, out_ch, *filt_hw, *g.stride, *g.dilation, *g.pad, lo, hi,
                             weights, bias, **extra)


def prepare(node: Node) -> FloatWindowParams:
    w = node.inputs[1]
    assert w is not None
    oc, fh, fw, fic = w.shape
    return window_params(node, (fh, fw), oc, filter_in_ch=fic)


def window_taps(p: FloatWindowParams, x: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per filter tap (row-major): the input pixel under it for every output [n, oh, ow, in_ch] (0 where
    outside) and where it lies inside the input [oh, ow, 1]."""
    x = np.asarray(x, np.float32)
    taps = []
    for fy in range(p.filter_h):
        rows = np.arange(p.out_h) * p.stride_h - p.pad_top + fy * p.dilation_h
        row_ok = (rows >= 0) & (rows < p.in_h)
        for fx in range(p.filter_w):
            cols = np.arange(p.out_w) * p.stride_w - p.pad_left + fx * p.dilation_w
            col_ok = (cols >= 0) & (cols < p.in_w)
            picked = x[:, np.clip(rows, 0, p.in_h - 1)][:, :, np.clip(cols, 0, p.in_w - 1)]
            taps.append((picked, (row_ok[:, None] & col_ok[None, :])[:, :, None]))
    return taps


def reference(node: Node, p: FloatWindowParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    groups = p.in_ch // p.filter_in_ch
    first_channel = (np.arange(p.out_ch) // (p.out_ch // groups)) * p.filter_in_ch  # of each output's group
    total = np.zeros((p.batches, p.out_h, p.out_w, p.out_ch), np.float32)
    for tap, (picked, inside) in enumerate(window_taps(p, inputs[0])):
        fy, fx = divmod(tap, p.filter_w)
        for ic in range(p.filter_in_ch):  # TFLite's order; numpy's own sums are pairwise
            total = accumulate_taps(total, picked[..., first_channel + ic] * p.weights[:, fy, fx, ic], inside)
    return [clamp(total + p.bias, p.act_min, p.act_max)]


def geometry_fields(p: FloatWindowParams) -> dict[str, int | str]:
    return {"geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
            "act_min": c_float(p.act_min), "act_max": c_float(p.act_max)}


def _pack(node: Node, p: FloatWindowParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    weights = np.ascontiguousarray(p.weights.transpose(1, 2, 3, 0))  # [fh][fw][fic][oc]
    return CCall("mote_conv_f32", "mote_conv_f32_params", {
        **geometry_fields(p), "filter_in_ch": p.filter_in_ch, "weights": em.const(weights, "weights"),
        "bias": em.const(p.bias, "bias")}, [em.tensor(x), em.tensor(node.outputs[0])])


KERNEL = Kernel("mote_conv_f32", frozenset(Core), _pack, dtypes=frozenset({DType.FLOAT32}))
