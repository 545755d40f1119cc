"""ONNX Resize (opset 11 and later) of a 4-D NCHW activation over its height and width, onto mote's
TFLite-style resize ops.

nearest: onnxruntime's source rows and columns are computed here as it computes them (its coordinate
         transformation and nearest_mode, in float32); the mote resize_nearest_neighbor whose flags
         (align_corners, half_pixel_centers) give exactly the same tables copies the int8 values, so the
         result is onnxruntime's bit for bit (in a QDQ graph it commutes with dequantization, like MaxPool).
linear:  float32 bilinear between DEQUANTIZE and QUANTIZE (floats.py; QDQ graphs only), with align_corners (ONNX
         align_corners), half_pixel_centers (half_pixel, pytorch_half_pixel) or neither (asymmetric), where
         the scale onnxruntime divides by is out / in. Not bit-exact: mote's weights are TFLite's (the input
         over output ratio multiplied), onnxruntime's its own, and interpolating quantized values often lands
         on an exact half step, where an ULP decides the rounding: one step apart on about 1% of the outputs.
Other modes (cubic, antialiasing, tf_crop_and_resize), resizing N or C, and coordinate maps TFLite's
flags cannot express are refused in one line naming the node.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import floats
from mote.frontend.onnx.check import MAX_ELEMENTS
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.movement import view
from mote.frontend.onnx.values import NHWC, Act, Const, Value
from mote.ir import DType, Node, Tensor
from mote.ops import OPS

F32 = np.float32
_LINEAR_FLAGS = {"align_corners": (True, False), "half_pixel": (False, True), "pytorch_half_pixel": (False, True),
                 "asymmetric": (False, False)}
_EXPORT_HINT = ("export it as PyTorch's interpolate does (asymmetric coordinates, nearest_mode floor) or with the "
                "ONNX defaults (half_pixel, round_prefer_floor)")
ATTRS = {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside",
         "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy"}


def _geometry(ctx: Context, node: Any, attrs: dict, onnx_shape: tuple[int, ...]) -> tuple[tuple[int, int],
                                                                                           tuple[float, float]]:
    """Output (height, width) and the scales onnxruntime's coordinate maps divide by; at most MAX_ELEMENTS
    output elements (a model is untrusted input)."""
    out_hw, scales = _sizes_and_scales(ctx, node, attrs, onnx_shape)
    if math.prod(onnx_shape[:2]) * math.prod(out_hw) > MAX_ELEMENTS:
        raise UnsupportedError(f"{ctx.where(node)}: the output {[*onnx_shape[:2], *out_hw]} has more than "
                               f"{MAX_ELEMENTS} elements, over mote's limit")
    return out_hw, scales


def _sizes_and_scales(ctx: Context, node: Any, attrs: dict, onnx_shape: tuple[int, ...]
                      ) -> tuple[tuple[int, int], tuple[float, float]]:
    where = ctx.where(node)
    if ctx.opsets.get("", 13) < 11:
        raise UnsupportedError(f"{where}: Resize before opset 11 is not supported; re-export with opset 11 or later")
    if len(onnx_shape) != 4 or attrs.get("axes") is not None:
        raise UnsupportedError(f"{where}: mote resizes 4-D NCHW tensors over height and width; export the Resize "
                               "without the axes attribute, with scales or sizes for all four axes")
    sizes = ctx.value(node, 3) if len(node.input) > 3 and node.input[3] else None
    scales = ctx.value(node, 2) if len(node.input) > 2 and node.input[2] else None
    n, c, h, w = onnx_shape
    if isinstance(sizes, Const) and sizes.data.size:
        out = [int(d) for d in sizes.data.reshape(-1)]
        if len(out) != 4 or out[:2] != [n, c] or min(out) < 1:
            raise UnsupportedError(f"{where}: sizes {out} must keep N and C of {list(onnx_shape)}")
        if attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch":
            raise UnsupportedError(f"{where}: keep_aspect_ratio_policy other than 'stretch' is not supported; give "
                                   "the output sizes themselves")
        return (out[2], out[3]), (float(F32(out[2]) / F32(h)), float(F32(out[3]) / F32(w)))
    if isinstance(scales, Const) and scales.data.size:
        s = [float(F32(v)) for v in scales.data.reshape(-1)]
        if len(s) != 4 or s[:2] != [1.0, 1.0] or min(s) <= 0:
            raise UnsupportedError(f"{where}: scales {s} must be 1 for N and C and positive for H and W")
        out_hw = (int(min(F32(h) * F32(s[2]), 2.0**40)), int(min(F32(w) * F32(s[3]), 2.0**40)))  # truncated
        if min(out_hw) < 1:
            raise UnsupportedError(f"{where}: scales {s} leave no output rows or columns")
        return out_hw, (s[2], s[3])
    raise UnsupportedError(f"{where}: Resize needs constant scales or sizes; fold their computation into constants "
                           "(e.g. with onnxsim)")


def _source(in_size: int, out_size: int, scale: float, coords: str, nearest: str, where: str) -> np.ndarray:
    """onnxruntime's nearest source index of each output position along one axis."""
    i, s = np.arange(out_size, dtype=F32), F32(scale)
    with np.errstate(all="ignore"):
        if coords == "half_pixel" or (coords == "pytorch_half_pixel" and out_size > 1):
            x = (i + F32(0.5)) / s - F32(0.5)
        elif coords == "pytorch_half_pixel":
            x = np.zeros(out_size, F32)
        elif coords == "asymmetric":
            x = i / s
        elif coords == "tf_half_pixel_for_nn":
            x = (i + F32(0.5)) / s
        elif coords == "align_corners":
            x = i * F32(in_size - 1) / F32(out_size - 1) if out_size > 1 else np.zeros(out_size, F32)
        else:
            raise UnsupportedError(f"{where}: coordinate_transformation_mode {coords!r} is not supported; "
                                   f"{_EXPORT_HINT}")
    x = x.astype(F32)
    trunc = np.trunc(x)
    away = np.sign(x) * np.floor(np.abs(x) + F32(0.5))  # std::round
    if nearest == "round_prefer_floor":
        index = np.where(x == trunc + F32(0.5), trunc, away)
    elif nearest == "round_prefer_ceil":
        index = away
    elif nearest == "floor":
        index = np.floor(x)
    elif nearest == "ceil":
        index = np.ceil(x)
    else:
        raise UnsupportedError(f"{where}: nearest_mode {nearest!r} is not supported; {_EXPORT_HINT}")
    return np.clip(index, 0, in_size - 1).astype(np.int64)


def _resize_node(b: Any, op: str, x: Act, out_hw: tuple[int, int], flags: tuple[bool, bool], name: str) -> Node:
    """A mote resize node on x (stored NHWC), not yet part of the graph."""
    size = Tensor(f"{name}_size", (2,), DType.INT32, None, np.array(out_hw, np.int32))
    n, _, _, c = x.tensor.shape
    out = Tensor(name, (n, *out_hw, c), x.tensor.dtype, x.tensor.quant)
    return Node(op, name, [x.tensor, size], [out], {"align_corners": flags[0], "half_pixel_centers": flags[1]})


def _add(ctx: Context, node: Node, x: Act, out_hw: tuple[int, int], name: str) -> Act:
    size = ctx.b.const(f"{name}_size", np.array(out_hw, np.int32), DType.INT32)
    out = ctx.b.node(node.op, [x.tensor, size], name, x.tensor.dtype, x.tensor.quant, dict(node.attrs))
    return Act(out, NHWC)


def _nearest(ctx: Context, node: Any, attrs: dict, x: Act) -> Act:
    where, name = ctx.where(node), node.output[0]
    out_hw, scales = _geometry(ctx, node, attrs, x.onnx_shape)
    x = ctx.b.to_layout(x, NHWC)
    coords = attrs.get("coordinate_transformation_mode", "half_pixel")
    mode = attrs.get("nearest_mode", "round_prefer_floor")
    in_hw = x.tensor.shape[1:3]
    want = [_source(in_hw[a], out_hw[a], scales[a], coords, mode, where) for a in range(2)]
    for flags in ((False, False), (False, True), (True, False), (True, True)):
        candidate = _resize_node(ctx.b, "resize_nearest_neighbor", x, out_hw, flags, name)
        p = OPS["resize_nearest_neighbor"].prepare(candidate)
        if np.array_equal(p.rows.low, want[0]) and np.array_equal(p.cols.low, want[1]):
            return _add(ctx, candidate, x, out_hw, name)
    raise UnsupportedError(f"{where}: nearest Resize with coordinate_transformation_mode {coords!r} and nearest_mode "
                           f"{mode!r} from {list(in_hw)} to {list(out_hw)} picks source pixels no TFLite resize picks; "
                           f"{_EXPORT_HINT}")


def _linear(ctx: Context, node: Any, attrs: dict) -> Act:
    """In float32, between DEQUANTIZE and QUANTIZE."""
    where, name = ctx.where(node), node.output[0]
    v = ctx.value(node, 0)
    if isinstance(v, Act) and v.tensor.dtype is DType.INT8:
        raise UnsupportedError(f"{where}: linear Resize of an int8 tensor (QOperator) is interpolated by onnxruntime "
                               "in integers and truncated, which mote does not reproduce; quantize the model in QDQ "
                               "format")
    return _linear_float(ctx, node, attrs, floats.float_input(ctx, node, 0), name)


def _linear_float(ctx: Context, node: Any, attrs: dict, x: Act | np.ndarray, name: str) -> Act:
    where = ctx.where(node)
    if not isinstance(x, Act):
        raise UnsupportedError(f"{where}: the input must be computed at run time")
    out_hw, scales = _geometry(ctx, node, attrs, x.onnx_shape)
    x = ctx.b.to_layout(x, NHWC)
    coords = attrs.get("coordinate_transformation_mode", "half_pixel")
    in_hw = x.tensor.shape[1:3]
    exact_ratio = all(F32(scales[a]) == F32(out_hw[a]) / F32(in_hw[a]) for a in range(2))
    if coords not in _LINEAR_FLAGS or not exact_ratio or (coords == "pytorch_half_pixel" and min(out_hw) == 1):
        raise UnsupportedError(f"{where}: linear Resize with coordinate_transformation_mode {coords!r} and scales "
                               f"{list(scales)} is not one TFLite's bilinear resize computes; export it with "
                               "half_pixel, align_corners or asymmetric coordinates and sizes (or scales giving whole "
                               "output sizes)")
    candidate = _resize_node(ctx.b, "resize_bilinear", x, out_hw, _LINEAR_FLAGS[coords], name)
    return _add(ctx, candidate, x, out_hw, name)


def resize(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    mode = attrs.get("mode", "nearest")
    if attrs.get("antialias", 0):
        raise UnsupportedError(f"{ctx.where(node)}: antialiased Resize is not supported; export it with "
                               "antialias=0")
    if mode == "nearest":
        return view(ctx, node, lambda x: _nearest(ctx, node, attrs, x))
    if mode == "linear":
        return [_linear(ctx, node, attrs)]
    raise UnsupportedError(f"{ctx.where(node)}: Resize mode {mode!r} is not supported (nearest and linear are)")


HANDLERS: dict[tuple[str, str], tuple[Any, set[str]]] = {("", "Resize"): (resize, ATTRS)}
