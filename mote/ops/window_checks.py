"""The `check` of each op with weights or windows: conv2d, depthwise_conv2d, fully_connected and the
two poolings. What each integer kernel accepts, in TFLite Micro's terms: int8 (or, where the op has an
int16 row, int16) activations quantized per tensor, constant int8 weights (per channel along the output
channels, or per tensor), an optional constant bias of one value per output channel (int32; int32 or
int64 with int16 activations), sizes at least 1, an output that is not empty.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import attr


def _weights(node: Node, per_channel_axis: int) -> Tensor:
    w = checks.present(node, 1, "filter")
    checks.dtype(node, w, "filter", DType.INT8)
    checks.constant(node, w, "filter")
    checks.quantized(node, w, "filter", per_channel_axis)
    return w


def _bias(node: Node, channels: int) -> None:
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is None:
        return
    x = node.inputs[0]
    wide = x is not None and x.dtype is DType.INT16
    checks.dtype(node, b, "bias", *((DType.INT32, DType.INT64) if wide else (DType.INT32,)))
    checks.constant(node, b, "bias")
    if b.size != channels:
        raise checks.fail(node, f"the bias {b.name!r} has {b.size} values for {channels} output channels")


def _activations(node: Node) -> tuple[Tensor, Tensor]:
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.INT8, DType.INT16)
    checks.quantized(node, x, "input")
    out = node.outputs[0]
    checks.dtype(node, out, "output", x.dtype)
    checks.quantized(node, out, "output")
    checks.activation(node)
    return x, out


def _image_layer(node: Node, per_channel_axis: int) -> tuple[Tensor, Tensor]:
    """A convolution's input and filter, both 4-D, with a 4-D output."""
    checks.input_count(node, 2, 3)
    x, out = _activations(node)
    w = _weights(node, per_channel_axis)
    checks.rank(node, x, "input", 4)
    checks.rank(node, w, "filter", 4)
    checks.rank(node, out, "output", 4)
    return x, w


def check_conv2d(node: Node) -> None:
    x, w = _image_layer(node, per_channel_axis=0)
    c, (oc, fh, fw, fic) = x.shape[3], w.shape
    if c % fic or oc % (c // fic):
        raise checks.fail(node, f"filter input depth {fic} and output depth {oc} do not divide the input depth {c} "
                                "into groups")
    _bias(node, oc)
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    checks.window_budget(node, x.shape[0] * oh * ow * fh * fw * c)


def check_depthwise_conv2d(node: Node) -> None:
    x, w = _image_layer(node, per_channel_axis=3)
    multiplier = attr(node, "depth_multiplier")
    one, fh, fw, oc = w.shape
    if not isinstance(multiplier, int) or multiplier < 1 or one != 1 or oc != x.shape[3] * multiplier:
        raise checks.fail(node, f"depthwise filter shape {list(w.shape)} does not match {x.shape[3]} input channels "
                                f"times depth_multiplier {multiplier!r}")
    _bias(node, oc)
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    checks.window_budget(node, x.shape[0] * oh * ow * fh * fw * oc)


def check_fully_connected(node: Node) -> None:
    checks.input_count(node, 2, 3)
    x, out = _activations(node)
    w = _weights(node, per_channel_axis=0)
    checks.rank(node, w, "weights", 2)
    if x.size % w.shape[1]:
        raise checks.fail(node, f"the input {x.name!r} of {x.size} values is not a whole number of rows of "
                                f"{w.shape[1]} (the weights' depth)")
    _bias(node, w.shape[0])
    bias = node.inputs[2] if len(node.inputs) > 2 else None
    assert w.quant is not None  # _weights checked it
    if bias is not None and len(w.quant.scale) == 1:
        # TFLite Micro's GetQuantizedConvolutionMultipler: the bias scale must be input * filter scale, nearly.
        product = float(np.float32(x.scale) * np.float32(w.scale))
        bias_scale = float(np.float32(bias.scale)) if bias.quant is not None else 0.0
        if not abs(product - bias_scale) / float(np.float32(out.scale)) <= 0.02:
            raise checks.fail(node, f"the bias scale {bias_scale:g} is not input scale times filter scale "
                                    f"({product:g}), which TFLite Micro requires")
    if not isinstance(attr(node, "keep_num_dims"), bool):
        raise checks.fail(node, "attribute keep_num_dims must be true or false")


def check_pool2d(node: Node) -> None:
    checks.input_count(node, 1)
    x, out = _activations(node)
    checks.rank(node, x, "input", 4)
    checks.rank(node, out, "output", 4)
    if abs(np.float32(x.scale) - np.float32(out.scale)) > 1e-6 or x.zero_point != out.zero_point:
        raise checks.fail(node, f"pooling needs the same quantization on input and output, as TFLite Micro does "
                                f"(scale {x.scale:g} / {out.scale:g}, zero point {x.zero_point} / {out.zero_point})")
    fh, fw = checks.window_pair(node, "filter")
    n, h, w, c = x.shape
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    (sh, sw) = checks.window_pair(node, "stride")
    checks.window_budget(node, n * oh * ow * fh * fw * c)
    # The reference pads the input into one array as large as the windows' reach.
    checks.window_budget(node, n * (h + fh + sh * oh) * (w + fw + sw * ow) * c)
