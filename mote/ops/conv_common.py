"""What the convolution-like ops share: TFLite's per-channel multipliers, the bias and weight inputs,
int32 accumulator bounds and requantization (conv2d, depthwise_conv2d, fully_connected,
requantize_s32 and the DLA's functional model use them; their windows: mote.ops.windows)."""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node, Tensor
from mote.quant import INT32_MAX, multiply_by_quantized_multiplier, quantize_multiplier


def f32(x: float) -> float:
    """A scale as TFLite stores it (float32), widened to double exactly."""
    return float(np.float32(x))


def conv_multipliers(x: Tensor, w: Tensor, out: Tensor, channels: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output channel (Q31 multiplier, shift), as TFLite's PopulateConvolutionQuantizationParams.

    effective = double(input_scale) * double(filter_scale[c]) / double(output_scale), each scale a
    float32 widened to double; a per-tensor filter scale is broadcast to every channel.
    """
    assert w.quant is not None
    scales = w.quant.scale
    if len(scales) not in (1, channels):
        raise UnsupportedError(f"weights {w.name!r}: {len(scales)} scales for {channels} output channels")
    pairs = [quantize_multiplier(f32(x.scale) * f32(scales[c if len(scales) > 1 else 0]) / f32(out.scale))
             for c in range(channels)]
    return np.array([m for m, _ in pairs], dtype=np.int32), np.array([s for _, s in pairs], dtype=np.int32)


def require_symmetric_weights(w: Tensor) -> None:
    assert w.quant is not None
    if any(z != 0 for z in w.quant.zero_point):
        raise UnsupportedError(f"weights {w.name!r}: int8 convolution weights must have zero point 0 "
                               f"(got {sorted(set(w.quant.zero_point))}); requantize the model symmetrically")


def filter_offset(node: Node, w: Tensor) -> int:
    """-the weights' zero point where the layer comes from a legacy uint8 model (attribute legacy_uint8, set
    by mote.frontend.tflite_uint8: old uint8 kernels subtract it from every weight), else 0 and the weights
    must be symmetric."""
    assert w.quant is not None
    if node.attrs.get("legacy_uint8") and len(w.quant.zero_point) == 1:
        return -w.quant.zero_point[0]
    require_symmetric_weights(w)
    return 0


def bias_array(node: Node, channels: int) -> np.ndarray | None:
    """The optional int32 bias input (node.inputs[2]) as a flat array, or None."""
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is None:
        return None
    if b.data is None:
        raise UnsupportedError(f"node {node.name!r}: the bias {b.name!r} must be a constant")
    bias = np.asarray(b.data, dtype=np.int64).reshape(-1)
    if bias.size != channels:
        raise UnsupportedError(f"node {node.name!r}: bias has {bias.size} values for {channels} output channels")
    return bias.astype(np.int32)


def const_data(t: Tensor | None, what: str, node: Node) -> np.ndarray:
    if t is None or t.data is None:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): the {what} must be a constant tensor")
    return np.asarray(t.data)


def fits_int32(worst: int) -> bool:
    """Whether an accumulator whose magnitude is at most `worst` cannot overflow int32."""
    return worst <= INT32_MAX


def max_abs(a: np.ndarray | None) -> int:
    return 0 if a is None else int(np.abs(a.astype(np.int64)).max(initial=0))


def fold_bias(bias: np.ndarray | None, weights: np.ndarray, input_offset: int) -> np.ndarray:
    """int64 bias[oc] + input_offset * sum(weights[oc]): the bias of a window with no padding taps,
    whose inner loop then multiplies the raw int8 input. weights: [out_ch, ...]."""
    channels = weights.shape[0]
    base = np.zeros(channels, np.int64) if bias is None else bias.astype(np.int64)
    return base + input_offset * weights.reshape(channels, -1).astype(np.int64).sum(axis=1)


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, output_offset: int,
               act_min: int, act_max: int) -> np.ndarray:
    """int32 accumulators (last axis = channel) to clamped int8 outputs."""
    scaled = multiply_by_quantized_multiplier(acc, multiplier, shift) + output_offset
    return np.clip(scaled, act_min, act_max).astype(np.int8)
