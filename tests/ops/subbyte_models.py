"""Single-layer and small TFLite models with sub-byte (int4/int2) weights, written as the TFLite converter
writes them: the weight buffer packed two (four) values a byte, the first in the low bits, per-channel
scales along axis 0 for CONV_2D and axis 3 for DEPTHWISE_CONV_2D, zero points 0; FULLY_CONNECTED with
per-tensor weights (TFLite Micro refuses per-channel int4 fully connected weights)."""

from __future__ import annotations

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder

TYPES = {4: "int4", 2: "int2", 8: "int8"}


def weights(rng: np.random.Generator, bits: int, shape: tuple[int, ...]) -> np.ndarray:
    half = 1 << (bits - 1) if bits < 8 else 128
    return rng.integers(-half if bits < 8 else -127, half, shape)


def fc_model(bits: int, depth: int, out: int, seed: int = 0, batches: int = 1, dtype_bits: int | None = None,
             w_zero_point: int = 0) -> bytes:
    """x [batches, depth] -> FULLY_CONNECTED (per-tensor weights of `bits` bits, stored as `dtype_bits`, with zero
    point `w_zero_point`)."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", [batches, depth], "int8", scale=0.05, zero_point=int(rng.integers(-20, 20)))
    w_scale = 0.3 / (1 << (bits - 1))
    w = mb.tensor("w", [out, depth], TYPES[dtype_bits or bits], scale=w_scale, zero_point=w_zero_point,
                  data=weights(rng, bits, (out, depth)))
    b = mb.tensor("b", [out], "int32", scale=0.05 * w_scale, zero_point=0, data=rng.integers(-300, 300, out))
    y = mb.tensor("y", [batches, out], "int8", scale=0.1 * np.sqrt(depth) / 4, zero_point=-3)
    mb.op("FULLY_CONNECTED", [x, w, b], [y], fused_activation_function="NONE")
    return mb.build([x], [y])


def conv_model(bits: int, in_hw: int, in_ch: int, out_ch: int, filt: int, stride: int, padding: str,
               seed: int = 0, dilation: int = 1, per_channel: bool = True, dtype_bits: int | None = None,
               activation: str = "NONE", filter_in_ch: int | None = None) -> bytes:
    """x [1, in_hw, in_hw, in_ch] -> CONV_2D with weights of `bits` bits (stored as `dtype_bits`), grouped when
    `filter_in_ch` divides in_ch into several groups."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, in_hw, in_hw, in_ch], "int8", scale=0.04, zero_point=int(rng.integers(-20, 20)))
    scales = list(rng.uniform(0.5, 1.5, out_ch) * 0.2 / (1 << (bits - 1))) if per_channel else 0.1 / (1 << (bits - 1))
    shape = (out_ch, filt, filt, filter_in_ch or in_ch)
    w = mb.tensor("w", list(shape), TYPES[dtype_bits or bits], scale=scales, zero_point=[0] * out_ch if per_channel
                  else 0, axis=0, data=weights(rng, bits, shape))
    bias_scales = [0.04 * s for s in scales] if per_channel else 0.04 * scales
    b = mb.tensor("b", [out_ch], "int32", scale=bias_scales, zero_point=[0] * out_ch if per_channel else 0,
                  data=rng.integers(-300, 300, out_ch))
    span = (filt - 1) * dilation + 1
    out_hw = -(-in_hw // stride) if padding == "SAME" else (in_hw - span) // stride + 1
    y = mb.tensor("y", [1, out_hw, out_hw, out_ch], "int8", scale=0.02 * np.sqrt(filt * filt * shape[3]),
                  zero_point=5)
    mb.op("CONV_2D", [x, w, b], [y], padding=padding, stride_h=stride, stride_w=stride, dilation_h_factor=dilation,
          dilation_w_factor=dilation, fused_activation_function=activation)
    return mb.build([x], [y])


def depthwise_model(bits: int, in_hw: int, in_ch: int, multiplier: int, filt: int, stride: int, padding: str,
                    seed: int = 0, dilation: int = 1, dtype_bits: int | None = None) -> bytes:
    """x [1, in_hw, in_hw, in_ch] -> DEPTHWISE_CONV_2D (per-channel weights of `bits` bits along axis 3)."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    out_ch = in_ch * multiplier
    x = mb.tensor("x", [1, in_hw, in_hw, in_ch], "int8", scale=0.04, zero_point=int(rng.integers(-20, 20)))
    scales = list(rng.uniform(0.5, 1.5, out_ch) * 0.2 / (1 << (bits - 1)))
    shape = (1, filt, filt, out_ch)
    w = mb.tensor("w", list(shape), TYPES[dtype_bits or bits], scale=scales, zero_point=[0] * out_ch, axis=3,
                  data=weights(rng, bits, shape))
    b = mb.tensor("b", [out_ch], "int32", scale=[0.04 * s for s in scales], zero_point=[0] * out_ch,
                  data=rng.integers(-300, 300, out_ch))
    span = (filt - 1) * dilation + 1
    out_hw = -(-in_hw // stride) if padding == "SAME" else (in_hw - span) // stride + 1
    y = mb.tensor("y", [1, out_hw, out_hw, out_ch], "int8", scale=0.02 * filt, zero_point=-7)
    mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], padding=padding, stride_h=stride, stride_w=stride,
          dilation_h_factor=dilation, dilation_w_factor=dilation, depth_multiplier=multiplier,
          fused_activation_function="RELU6")
    return mb.build([x], [y])


def small_cnn_int4(seed: int = 0, bits: int = 4, dtype_bits: int | None = None) -> bytes:
    """conv 3x3 (int4, per channel) + ReLU -> depthwise 3x3 (int4, per channel) -> reshape -> fully connected
    (int4, per tensor): every layer with sub-byte weights."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    kind = TYPES[dtype_bits or bits]
    top = 1 << (bits - 1)

    def per_channel(n: int, axis: int, shape: tuple[int, ...], name: str) -> tuple[int, list[float]]:
        scales = list(rng.uniform(0.5, 1.5, n) * 0.1 / top)
        return mb.tensor(name, list(shape), kind, scale=scales, zero_point=[0] * n, axis=axis,
                         data=weights(rng, bits, shape)), scales

    def bias(n: int, scales: list[float], in_scale: float, name: str) -> int:
        return mb.tensor(name, [n], "int32", scale=[in_scale * s for s in scales], zero_point=[0] * n,
                         data=rng.integers(-200, 200, n))

    one = {"stride_h": 1, "stride_w": 1, "dilation_h_factor": 1, "dilation_w_factor": 1}
    x = mb.tensor("x", [1, 10, 10, 3], "int8", scale=0.02, zero_point=-5)
    y1 = mb.tensor("y1", [1, 10, 10, 8], "int8", scale=0.01, zero_point=-128)
    w1, s1 = per_channel(8, 0, (8, 3, 3, 3), "w1")
    mb.op("CONV_2D", [x, w1, bias(8, s1, 0.02, "b1")], [y1], padding="SAME", fused_activation_function="RELU", **one)
    y2 = mb.tensor("y2", [1, 8, 8, 8], "int8", scale=0.01, zero_point=2)
    wd, sd = per_channel(8, 3, (1, 3, 3, 8), "wd")
    mb.op("DEPTHWISE_CONV_2D", [y1, wd, bias(8, sd, 0.01, "bd")], [y2], padding="VALID", depth_multiplier=1,
          fused_activation_function="NONE", **one)
    y3 = mb.tensor("y3", [1, 512], "int8", scale=0.01, zero_point=2)
    mb.op("RESHAPE", [y2, mb.tensor("shape", [2], "int32", data=np.array([1, 512]))], [y3], new_shape=[1, 512])
    y4 = mb.tensor("y4", [1, 10], "int8", scale=0.05, zero_point=-10)
    wf_scale = 0.05 / top
    wf = mb.tensor("wf", [10, 512], kind, scale=wf_scale, zero_point=0, data=weights(rng, bits, (10, 512)))
    bf = mb.tensor("bf", [10], "int32", scale=0.01 * wf_scale, zero_point=0, data=rng.integers(-200, 200, 10))
    mb.op("FULLY_CONNECTED", [y3, wf, bf], [y4], fused_activation_function="NONE")
    return mb.build([x], [y4])
