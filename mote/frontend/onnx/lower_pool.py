"""Quantized ONNX pooling -> mote nodes (max, average and global average pooling), shared by the QDQ and
QOperator readers as the rest of mote.frontend.onnx.lower."""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx.lower import check_rank, pad_tensor, padded_input, requantize
from mote.frontend.onnx.values import NHWC, Act, Builder, as_2d, from_2d, same_quant
from mote.frontend.onnx.window import Window, attrs_2d, window
from mote.ir import DType, Quant, Tensor


def max_pool(b: Builder, x: Act, attrs: dict, name: str, global_pool: bool = False) -> Act:
    """Max pooling; padding never wins (explicit padding, if needed, is filled with -128)."""
    if x.rank == 3:
        return from_2d(b, max_pool(b, as_2d(b, x, name), attrs_2d(attrs), name, global_pool))
    check_rank(x, name)
    x = b.to_layout(x, NHWC)
    hw = (x.tensor.shape[1], x.tensor.shape[2])
    kernel = hw if global_pool else tuple(attrs["kernel_shape"])
    if len(kernel) != 2:
        raise UnsupportedError(f"{name}: only 2-D pooling is supported")
    if tuple(attrs.get("dilations", (1, 1))) != (1, 1):
        raise UnsupportedError(f"{name}: dilated pooling is not supported")
    if attrs.get("storage_order", 0):
        raise UnsupportedError(f"{name}: MaxPool storage_order=1 is not supported")
    win = window({} if global_pool else attrs, hw, kernel, name)
    xt, padding = padded_input(b, x, win, -128, name)
    out = b.node("max_pool2d", [xt], name, DType.INT8, x.quant,
                 {"filter": win.kernel, "stride": win.stride, "padding": padding, "activation": "NONE"})
    return Act(out, NHWC)


def avg_pool(b: Builder, x: Act, attrs: dict, out_q: Quant, activation: str, name: str) -> Act:
    """Average pooling; mote averages in the input's quantization, then requantizes if needed."""
    if x.rank == 3:
        return from_2d(b, avg_pool(b, as_2d(b, x, name), attrs_2d(attrs), out_q, activation, name))
    check_rank(x, name)
    x = b.to_layout(x, NHWC)
    hw = (x.tensor.shape[1], x.tensor.shape[2])
    kernel = tuple(attrs["kernel_shape"])
    if len(kernel) != 2:
        raise UnsupportedError(f"{name}: only 2-D pooling is supported")
    if tuple(attrs.get("dilations", (1, 1))) != (1, 1):
        raise UnsupportedError(f"{name}: dilated pooling is not supported")
    win = window(attrs, hw, kernel, name)
    include = bool(attrs.get("count_include_pad", 0))
    if include and win.pads != (0, 0, 0, 0):
        t, left, bottom, right = win.pads
        xt = pad_tensor(b, x.tensor, [(0, 0), (t, bottom), (left, right), (0, 0)], x.quant.zero_point[0],
                        f"{name}_pad")
        win, padding = Window(win.kernel, win.stride, win.dilation, (0, 0, 0, 0), win.out), "VALID"
    else:
        xt, padding = padded_input(b, x, win, None, name)
    same = same_quant(x.quant, out_q)
    if not same and (padding == "VALID" or include):
        return _average_as_depthwise(b, xt, win, out_q, activation, name)
    quant = out_q if same else x.quant
    act = activation if same else "NONE"
    out = b.node("avg_pool2d", [xt], name if same else f"{name}_avg", DType.INT8, quant,
                 {"filter": win.kernel, "stride": win.stride, "padding": padding, "activation": act})
    if not same and activation != "NONE":
        raise UnsupportedError(f"{name}: a fused clip on an average pool that requantizes is not supported")
    return requantize(b, Act(out, NHWC), out_q, name)


def _average_as_depthwise(b: Builder, xt: Tensor, win: Window, out_q: Quant, activation: str, name: str) -> Act:
    """Every window complete (VALID, or padding counted): a depthwise convolution with weights 1 of scale
    1 / taps requantizes straight to the output (one rounding, where averaging then requantizing
    would round twice)."""
    assert xt.quant is not None
    c, taps = xt.shape[3], win.kernel[0] * win.kernel[1]
    weights = b.const(f"{name}_ones", np.ones((1, *win.kernel, c), np.int8), DType.INT8, Quant((1.0 / taps,), (0,)))
    attrs = {"stride": win.stride, "dilation": (1, 1), "padding": "VALID", "activation": activation,
             "depth_multiplier": 1}
    return Act(b.node("depthwise_conv2d", [xt, weights, None], name, DType.INT8, out_q, attrs), NHWC)


def global_avg_pool(b: Builder, x: Act, out_q: Quant, name: str) -> Act:
    """GlobalAveragePool: mote mean over H and W, dimensions kept."""
    if x.rank == 3:
        return from_2d(b, global_avg_pool(b, as_2d(b, x, name), out_q, name))
    check_rank(x, name)
    x = b.to_layout(x, NHWC)
    axes = b.const(f"{name}_axes", np.array([1, 2], dtype=np.int32), DType.INT32)
    return Act(b.node("mean", [x.tensor, axes], name, DType.INT8, out_q, {"keep_dims": True}), NHWC)
