"""DEPTHWISE_CONV_2D in float32: output channel oc = ic * depth_multiplier + m convolves input channel ic.

Bit-exact with TFLite Micro's float reference DepthwiseConv: each output sums w * x from 0 over its
window's taps inside the input, filter row by row; the bias (0 when absent) is added after the sum,
then the fused activation clamps. The window helpers are conv2d_f32's.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.conv2d_f32 import FloatWindowParams, check_bias, check_window_layer, geometry_fields, window_params
from mote.ops.conv2d_f32 import window_taps as taps_of
from mote.ops.float_common import accumulate_taps, clamp
from mote.ops.registry import CCall, Core, Emitter, Kernel, attr


def check(node: Node) -> None:
    x, w = check_window_layer(node)
    multiplier = attr(node, "depth_multiplier")
    one, fh, fw, oc = w.shape
    if not isinstance(multiplier, int) or multiplier < 1 or one != 1 or oc != x.shape[3] * multiplier:
        raise checks.fail(node, f"depthwise filter shape {list(w.shape)} does not match {x.shape[3]} input channels "
                                f"times depth_multiplier {multiplier!r}")
    check_bias(node, oc)
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    checks.window_budget(node, x.shape[0] * oh * ow * fh * fw * oc)


def prepare(node: Node) -> FloatWindowParams:
    w = node.inputs[1]
    assert w is not None
    _, fh, fw, oc = w.shape
    return window_params(node, (fh, fw), oc, depth_multiplier=int(attr(node, "depth_multiplier")))


def reference(node: Node, p: FloatWindowParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    channel = np.arange(p.out_ch) // p.depth_multiplier  # the input channel of each output channel
    total = np.zeros((p.batches, p.out_h, p.out_w, p.out_ch), np.float32)
    for tap, (picked, inside) in enumerate(taps_of(p, inputs[0])):
        fy, fx = divmod(tap, p.filter_w)
        total = accumulate_taps(total, picked[..., channel] * p.weights[0, fy, fx], inside)
    return [clamp(total + p.bias, p.act_min, p.act_max)]


def _pack(node: Node, p: FloatWindowParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    weights = np.ascontiguousarray(p.weights.reshape(p.filter_h, p.filter_w, p.out_ch))
    return CCall("mote_depthwise_conv_f32", "mote_depthwise_conv_f32_params", {
        **geometry_fields(p), "depth_multiplier": p.depth_multiplier, "weights": em.const(weights, "weights"),
        "bias": em.const(p.bias, "bias")}, [em.tensor(x), em.tensor(node.outputs[0])])


KERNEL = Kernel("mote_depthwise_conv_f32", frozenset(Core), _pack, dtypes=frozenset({DType.FLOAT32}))
