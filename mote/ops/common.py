"""Rules shared by several ops: padding, activation ranges, shapes (TFLite's conventions)."""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.quant import quantize_multiplier_smaller_than_one, round_to_int32

INT8_MIN, INT8_MAX = -128, 127


def out_size_and_pad(size: int, filt: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """Output length and leading pad along one spatial axis (TFLite's ComputePaddingHeightWidth)."""
    effective = (filt - 1) * dilation + 1
    if padding == "SAME":
        out = (size + stride - 1) // stride
    elif padding == "VALID":
        out = (size + stride - effective) // stride
    else:
        raise UnsupportedError(f"padding {padding!r} is not supported (use SAME or VALID)")
    total = max((out - 1) * stride + effective - size, 0)
    return out, total // 2


def activation_range(activation: str, out: Tensor) -> tuple[int, int]:
    """The clamp range of a fused activation in the output's integer type (TFLite's
    CalculateActivationRangeQuantized)."""
    scale, zero_point = np.float32(out.scale), out.zero_point
    info = np.iinfo(out.dtype.np) if out.dtype is not DType.INT8 else None
    low, high = (INT8_MIN, INT8_MAX) if info is None else (int(info.min), int(info.max))

    def q(real: float) -> int:
        return zero_point + round_to_int32(float(np.float32(real) / scale), f"the activation bound {real:g}")

    if activation == "NONE":
        return low, high
    if activation == "RELU":
        return max(low, q(0.0)), high
    if activation == "RELU6":
        return max(low, q(0.0)), min(high, q(6.0))
    if activation == "RELU_N1_TO_1":
        return max(low, q(-1.0)), min(high, q(1.0))
    raise UnsupportedError(f"fused activation {activation!r} is not supported for {out.dtype.value} "
                           "(supported: NONE, RELU, RELU6, RELU_N1_TO_1)")


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(a, b))


def smaller_than_one(node: Node, real: float, what: str) -> tuple[int, int]:
    """TFLite's QuantizeMultiplierSmallerThanOneExp, which aborts outside (0, 1)."""
    if not 0.0 < real < 1.0:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): the {what} rescale factor {real:g} is outside "
                               "(0, 1), which TFLite Micro rejects; check the tensors' scales")
    return quantize_multiplier_smaller_than_one(real)
