"""CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with int16 activations and int8 weights (TFLite's 16x8
quantization), bit-exact with TFLite Micro's reference kernels:

- the sums run over int16 inputs times int8 weights; the convolutions take no input or output offset
  (16x8 zero points are 0: a nonzero one is refused), the fully connected layer takes both and the
  filter offset of per-tensor weights, as the interpreter does;
- with an int64 bias, or none, the accumulator is int64 and requantizes through TFLite's int64
  MultiplyByQuantizedMultiplier (the multiplier rounded to 15 bits, one rounding shift); with an int32
  bias it is int32, wraps, and requantizes as the int8 kernels do (the depthwise kernel always reads an
  int64 bias, so an int32 one is refused there);
- then the output offset, the fused activation's clamp in int16.
The multipliers are the int8 ops' (per channel, in double).

Where no partial sum can leave int32 (the weights' magnitudes times the largest input, checked at compile
time: `narrow`), the kernels sum in int32 and widen once, the same value as an int64 sum; the convolutions
then keep one accumulator per output channel in scratch and walk the weights laid out [fh][fw][in][out] (a
depthwise layer's [fh][fw][out]), so that the innermost loop runs along the output channels and
vectorizes. A grouped convolution or a wider sum takes the plain loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.common import activation_range
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import const_data, conv_multipliers
from mote.ops.registry import CCall, Core, Emitter, Kernel, attr
from mote.ops.window_checks import check_conv2d, check_depthwise_conv2d, check_fully_connected
from mote.ops.windows import grouped_conv, layer_windows, window_geometry
from mote.quant import multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64


@dataclass(frozen=True, eq=False)
class FullyConnected16x8:
    batches: int
    accum_depth: int
    out_depth: int
    input_offset: int
    filter_offset: int  # -filter zero point for per-tensor weights, else 0
    output_offset: int
    act_min: int
    act_max: int
    weights: np.ndarray  # int8 [out_depth, accum_depth]
    bias: np.ndarray | None
    multiplier: np.ndarray
    shift: np.ndarray


@dataclass(frozen=True, eq=False)
class Wide:
    """A 16x8 layer: the int8 op's own parameters (bias int64) and the accumulator's width."""

    layer: Any  # ConvParams (a depthwise layer as the grouped convolution it is) or FullyConnected16x8
    acc64: bool
    narrow: bool = False  # every partial sum fits int32 (see the module docstring)


def _bias(node: Node, channels: int) -> tuple[np.ndarray | None, bool]:
    """The bias as int64 (None if absent), and whether the accumulator is int64."""
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is None:
        return None, True
    assert b.data is not None
    return np.asarray(b.data, np.int64).reshape(channels), b.dtype is DType.INT64


def _symmetric(node: Node) -> None:
    for t, role in ((node.inputs[0], "input"), (node.outputs[0], "output")):
        assert t is not None
        if t.zero_point != 0:
            raise checks.fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro's "
                                    "16x8 convolutions assume 0")


def check_conv(node: Node) -> None:
    check_conv2d(node)
    _symmetric(node)


def check_depthwise(node: Node) -> None:
    check_depthwise_conv2d(node)
    _symmetric(node)
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is not None and b.dtype is not DType.INT64:
        raise checks.fail(node, f"the bias {b.name!r} is {b.dtype.value}; TFLite Micro's int16 depthwise "
                                "convolution reads an int64 bias")


def prepare_conv(node: Node) -> Wide:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None
    weights = const_data(w, "filter", node).astype(np.int8)
    n, h, wd, c = x.shape
    oc, fh, fw, fic = weights.shape
    g = window_geometry(node, (h, wd), (fh, fw))
    bias, acc64 = _bias(node, oc)
    return Wide(ConvParams(n, h, wd, c, *g.out, oc, fh, fw, fic, *g.stride, *g.dilation, *g.pad, 0, 0,
                           *activation_range(attr(node, "activation"), out), weights, bias,
                           *conv_multipliers(x, w, out, oc)), acc64, _narrow(weights, 1 << 15))


def prepare_depthwise(node: Node) -> Wide:
    """As a convolution with one group per input channel: output channel o reads input channel
    o // depth_multiplier, which is TFLite's depthwise order; the weights [1, fh, fw, oc] become
    [oc, fh, fw, 1]."""
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None
    _, fh, fw, oc = w.shape
    n, h, wd, c = x.shape
    g = window_geometry(node, (h, wd), (fh, fw))
    bias, _ = _bias(node, oc)
    weights = const_data(w, "filter", node).astype(np.int8).reshape(fh, fw, oc).transpose(2, 0, 1)[..., None]
    return Wide(ConvParams(n, h, wd, c, *g.out, oc, fh, fw, 1, *g.stride, *g.dilation, *g.pad, 0, 0,
                           *activation_range(attr(node, "activation"), out), np.ascontiguousarray(weights), bias,
                           *conv_multipliers(x, w, out, oc)), True, _narrow(weights, 1 << 15))


def prepare_fully_connected(node: Node) -> Wide:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None and w.quant is not None
    weights = const_data(w, "weights", node).astype(np.int8)
    out_depth, depth = weights.shape
    # per tensor, the same double product as per channel (GetQuantizedConvolutionMultipler)
    multiplier, shift = conv_multipliers(x, w, out, out_depth)
    filter_offset = 0 if len(w.quant.scale) > 1 else -w.zero_point
    bias, acc64 = _bias(node, out_depth)
    return Wide(FullyConnected16x8(x.size // depth, depth, out_depth, -x.zero_point, filter_offset, out.zero_point,
                                   *activation_range(attr(node, "activation"), out), weights, bias, multiplier,
                                   shift), acc64,
                _narrow(weights.astype(np.int64) + filter_offset, (1 << 15) + abs(x.zero_point)))


def _narrow(weights: np.ndarray, largest_input: int) -> bool:
    """Whether every output channel's sum of |w| * the largest input magnitude fits int32."""
    magnitude = np.abs(weights.astype(np.int64)).reshape(weights.shape[0], -1).sum(axis=1)
    return int(magnitude.max(initial=0)) * largest_input < 2**31


def _output(acc: np.ndarray, p: Any, acc64: bool, output_offset: int, shape: tuple[int, ...]) -> list[np.ndarray]:
    if acc64:
        scaled = multiply_by_quantized_multiplier_64(acc, p.multiplier, p.shift)
    else:
        scaled = multiply_by_quantized_multiplier((acc + 2**31) % 2**32 - 2**31, p.multiplier, p.shift)
    out = (scaled + output_offset + 2**31) % 2**32 - 2**31
    return [np.clip(out, p.act_min, p.act_max).astype(np.int16).reshape(shape)]


def reference_conv(node: Node, w: Wide, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Both convolutions: a depthwise layer is prepared as a grouped one."""
    p = w.layer
    acc = grouped_conv(layer_windows(p, inputs[0]), p.weights, p.groups)
    return _output(acc if p.bias is None else acc + p.bias, p, w.acc64, 0, node.outputs[0].shape)


def reference_fully_connected(node: Node, w: Wide, inputs: list[np.ndarray]) -> list[np.ndarray]:
    p = w.layer
    x = np.asarray(inputs[0], np.int64).reshape(p.batches, p.accum_depth) + p.input_offset
    acc = x @ (p.weights.astype(np.int64) + p.filter_offset).T
    return _output(acc if p.bias is None else acc + p.bias, p, w.acc64, p.output_offset, node.outputs[0].shape)


def _common(p: Any, em: Emitter, acc64: bool, channels: int) -> dict[str, int | str]:
    bias = np.zeros(channels, np.int64) if p.bias is None else p.bias
    return {"act_min": p.act_min, "act_max": p.act_max, "acc64": int(acc64),
            "bias": em.const(bias.astype(np.int64), "bias"),
            "multiplier": em.const(p.multiplier.astype(np.int32), "multiplier"),
            "shift": em.const(p.shift.astype(np.int32), "shift")}


def _window_fields(p: Any) -> dict[str, int | str]:
    return {"batches": p.batches, "in_h": p.in_h, "in_w": p.in_w, "in_ch": p.in_ch, "out_h": p.out_h,
            "out_w": p.out_w, "filter_h": p.filter_h, "filter_w": p.filter_w, "stride_h": p.stride_h,
            "stride_w": p.stride_w, "dilation_h": p.dilation_h, "dilation_w": p.dilation_w, "pad_top": p.pad_top,
            "pad_left": p.pad_left}


def _args(node: Node, em: Emitter) -> list[str]:
    x = node.inputs[0]
    assert x is not None
    return [em.tensor(x), em.tensor(node.outputs[0])]


def _channel_major(node: Node, w: Wide) -> bool:
    """The convolutions' fast path: int32 sums, and one group (a depthwise layer: its own fast path)."""
    return w.narrow and (node.op == "depthwise_conv2d" or w.layer.groups == 1)


def _pack_conv(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    fast = _channel_major(node, w)
    weights = np.ascontiguousarray(p.weights.transpose(1, 2, 3, 0)) if fast else p.weights  # [fh][fw][in][out]
    fields = {**_window_fields(p), "out_ch": p.out_ch, "filter_in_ch": p.filter_in_ch, "narrow": int(fast),
              "weights": em.const(weights, "weights"), **_common(p, em, w.acc64, p.out_ch)}
    return CCall("mote_conv_s16", "mote_conv_s16_params", fields, _args(node, em))


def _pack_depthwise(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    fast = _channel_major(node, w)
    weights = np.ascontiguousarray(p.weights[..., 0].transpose(1, 2, 0)) if fast else p.weights  # [fh][fw][out]
    fields = {**_window_fields(p), "depth_multiplier": p.out_ch // p.in_ch, "narrow": int(fast),
              "weights": em.const(weights, "weights"), **_common(p, em, True, p.out_ch)}
    return CCall("mote_depthwise_conv_s16", "mote_depthwise_conv_s16_params", fields, _args(node, em))


def _accumulators(node: Node, w: Wide) -> int:
    """The fast convolutions' scratch: an int32 per output channel."""
    return 4 * w.layer.out_ch if _channel_major(node, w) else 0


def _pack_fully_connected(node: Node, w: Wide, em: Emitter) -> CCall:
    p = w.layer
    fields = {"batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
              "input_offset": p.input_offset, "filter_offset": p.filter_offset, "output_offset": p.output_offset,
              "narrow": int(w.narrow), "weights": em.const(p.weights, "weights"),
              **_common(p, em, w.acc64, p.out_depth)}
    return CCall("mote_fully_connected_s16", "mote_fully_connected_s16_params", fields, _args(node, em))


_INT16 = frozenset({DType.INT16})
CONV_KERNEL = Kernel("mote_conv_s16", frozenset(Core), _pack_conv, scratch_bytes=_accumulators, dtypes=_INT16,
                     scratch_why="one pixel's int32 accumulators")
DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_s16", frozenset(Core), _pack_depthwise, scratch_bytes=_accumulators,
                          dtypes=_INT16, scratch_why="one pixel's int32 accumulators")
FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_s16", frozenset(Core), _pack_fully_connected, dtypes=_INT16)
# (check, prepare, reference) rows for the ops' BY_DTYPE tables
CONV = (check_conv, prepare_conv, reference_conv)
DEPTHWISE = (check_depthwise, prepare_depthwise, reference_conv)
FULLY_CONNECTED = (check_fully_connected, prepare_fully_connected, reference_fully_connected)
