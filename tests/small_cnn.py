"""A small int8 CNN built in code, for the firmware targets' tests (rv32, Cortex-M)."""

from __future__ import annotations

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder


def small_cnn(seed: int = 0, hw: int = 12, ch: int = 8) -> bytes:
    """conv 3x3 + ReLU -> max pool 2x2 -> depthwise 3x3 + ReLU6 -> reshape -> fully connected."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()

    def per_channel(n: int, axis: int, shape: tuple[int, ...], name: str) -> int:
        return mb.tensor(name, list(shape), "int8", scale=list(rng.uniform(0.005, 0.02, n)), zero_point=0,
                         axis=axis, data=rng.integers(-127, 128, shape))

    def bias(n: int, scale: float, name: str) -> int:
        return mb.tensor(name, [n], "int32", scale=[scale] * n, zero_point=0, data=rng.integers(-2000, 2000, n))

    half, flat = hw // 2, (hw // 2) ** 2 * ch
    conv = {"stride_h": 1, "stride_w": 1, "dilation_h_factor": 1, "dilation_w_factor": 1}
    x = mb.tensor("x", [1, hw, hw, 3], "int8", scale=0.02, zero_point=-5)
    y1 = mb.tensor("y1", [1, hw, hw, ch], "int8", scale=0.05, zero_point=-128)
    mb.op("CONV_2D", [x, per_channel(ch, 0, (ch, 3, 3, 3), "w1"), bias(ch, 2e-4, "b1")], [y1], padding="SAME",
          fused_activation_function="RELU", **conv)
    y2 = mb.tensor("y2", [1, half, half, ch], "int8", scale=0.05, zero_point=-128)
    mb.op("MAX_POOL_2D", [y1], [y2], padding="VALID", stride_h=2, stride_w=2, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    y3 = mb.tensor("y3", [1, half, half, ch], "int8", scale=0.04, zero_point=3)
    mb.op("DEPTHWISE_CONV_2D", [y2, per_channel(ch, 3, (1, 3, 3, ch), "wd"), bias(ch, 5e-4, "bd")], [y3],
          padding="SAME", depth_multiplier=1, fused_activation_function="RELU6", **conv)
    y4 = mb.tensor("y4", [1, flat], "int8", scale=0.04, zero_point=3)
    mb.op("RESHAPE", [y3, mb.tensor("shape", [2], "int32", data=np.array([1, flat]))], [y4], new_shape=[1, flat])
    y5 = mb.tensor("y5", [1, 10], "int8", scale=0.5, zero_point=-10)
    wf = mb.tensor("wf", [10, flat], "int8", scale=0.01, zero_point=0, data=rng.integers(-127, 128, (10, flat)))
    mb.op("FULLY_CONNECTED", [y4, wf, bias(10, 4e-4, "bf")], [y5], fused_activation_function="NONE")
    return mb.build([x], [y5])
