"""The models the fuzzer mutates: the bundled digits CNN, two MLPerf Tiny models, and one small model per
TFLite operator mote supports (so a mutation can reach every op's loader, prepare and kernel code): built
here, or taken from the op's own test (tests.fuzzing.op_seeds)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder
from tests.fuzzing.op_seeds import MODEL_SEEDS

REPO = Path(__file__).resolve().parents[2]
MODEL_FILES = {
    "digits_cnn": REPO / "mote" / "models" / "digits_cnn.tflite",
    "ad01": REPO / "models" / "mlperf-tiny" / "ad01_int8.tflite",
    "kws": REPO / "models" / "mlperf-tiny" / "kws_ref_model.tflite",
}


def _weights(rng: np.random.Generator, shape: list[int]) -> np.ndarray:
    return rng.integers(-127, 128, shape)


def _conv2d(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 5, 5, 3], "int8", scale=0.02, zero_point=-3)
    w_scales = list(rng.uniform(0.002, 0.02, 4))
    w = mb.tensor("w", [4, 3, 3, 3], "int8", scale=w_scales, zero_point=0, axis=0, data=_weights(rng, [4, 3, 3, 3]))
    b = mb.tensor("b", [4], "int32", scale=[0.02 * s for s in w_scales], zero_point=0,
                  data=rng.integers(-2000, 2000, 4))
    y = mb.tensor("y", [1, 3, 3, 4], "int8", scale=0.1, zero_point=5)
    mb.op("CONV_2D", [x, w, b], [y], padding="SAME", stride_h=2, stride_w=2, fused_activation_function="RELU")
    return [x], [y]


def _depthwise(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 5, 5, 4], "int8", scale=0.02, zero_point=7)
    w_scales = list(rng.uniform(0.002, 0.02, 4))
    w = mb.tensor("w", [1, 3, 3, 4], "int8", scale=w_scales, zero_point=0, axis=3, data=_weights(rng, [1, 3, 3, 4]))
    b = mb.tensor("b", [4], "int32", scale=[0.02 * s for s in w_scales], zero_point=0,
                  data=rng.integers(-2000, 2000, 4))
    y = mb.tensor("y", [1, 3, 3, 4], "int8", scale=0.05, zero_point=-10)
    mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], padding="VALID", depth_multiplier=1, dilation_h_factor=1,
          dilation_w_factor=1, fused_activation_function="RELU6")
    return [x], [y]


def _fully_connected(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [2, 8], "int8", scale=0.03, zero_point=1)
    w = mb.tensor("w", [5, 8], "int8", scale=0.01, zero_point=0, data=_weights(rng, [5, 8]))
    b = mb.tensor("b", [5], "int32", scale=0.0003, zero_point=0, data=rng.integers(-500, 500, 5))
    y = mb.tensor("y", [2, 5], "int8", scale=0.08, zero_point=-2)
    mb.op("FULLY_CONNECTED", [x, w, b], [y], fused_activation_function="NONE")
    return [x], [y]


def _pool(builtin: str) -> Callable[[ModelBuilder, np.random.Generator], tuple[list[int], list[int]]]:
    def build(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        x = mb.tensor("x", [1, 4, 5, 2], "int8", scale=0.04, zero_point=-9)
        y = mb.tensor("y", [1, 2, 3, 2], "int8", scale=0.04, zero_point=-9)
        mb.op(builtin, [x], [y], padding="SAME", stride_h=2, stride_w=2, filter_height=2, filter_width=3)
        return [x], [y]
    return build


def _binary(builtin: str, activation: str) -> Callable[[ModelBuilder, np.random.Generator],
                                                       tuple[list[int], list[int]]]:
    def build(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        a = mb.tensor("a", [1, 4, 3], "int8", scale=0.05, zero_point=3)
        b = mb.tensor("b", [3], "int8", scale=0.02, zero_point=-4)
        y = mb.tensor("y", [1, 4, 3], "int8", scale=0.1 if builtin != "MUL" else 0.01, zero_point=0)
        mb.op(builtin, [a, b], [y], fused_activation_function=activation)
        return [a, b], [y]
    return build


def _reshape(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 2, 6], "int8", scale=0.1, zero_point=0)
    s = mb.tensor("shape", [2], "int32", data=np.array([1, 12]))
    y = mb.tensor("y", [1, 12], "int8", scale=0.1, zero_point=0)
    mb.op("RESHAPE", [x, s], [y], new_shape=[1, 12])
    return [x], [y]


def _squeeze(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 3, 1, 4], "int8", scale=0.1, zero_point=2)
    y = mb.tensor("y", [3, 4], "int8", scale=0.1, zero_point=2)
    mb.op("SQUEEZE", [x], [y], squeeze_dims=[0, 2])
    return [x], [y]


def _unary(builtin: str, out_scale: float, out_zp: int,
           **options: object) -> Callable[[ModelBuilder, np.random.Generator], tuple[list[int], list[int]]]:
    def build(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        x = mb.tensor("x", [2, 10], "int8", scale=0.05, zero_point=-6)
        y = mb.tensor("y", [2, 10], "int8", scale=out_scale, zero_point=out_zp)
        mb.op(builtin, [x], [y], **options)
        return [x], [y]
    return build


def _quantize(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 6], "float32")
    y = mb.tensor("y", [1, 6], "int8", scale=0.01, zero_point=-3)
    mb.op("QUANTIZE", [x], [y])
    return [x], [y]


def _dequantize(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 6], "int8", scale=0.01, zero_point=-3)
    y = mb.tensor("y", [1, 6], "float32")
    mb.op("DEQUANTIZE", [x], [y])
    return [x], [y]


def _concatenation(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    a = mb.tensor("a", [1, 2, 3], "int8", scale=0.05, zero_point=1)
    b = mb.tensor("b", [1, 2, 2], "int8", scale=0.05, zero_point=1)
    y = mb.tensor("y", [1, 2, 5], "int8", scale=0.05, zero_point=1)
    mb.op("CONCATENATION", [a, b], [y], axis=-1, fused_activation_function="NONE")
    return [a, b], [y]


def _pad(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 3, 3, 2], "int8", scale=0.05, zero_point=4)
    p = mb.tensor("paddings", [4, 2], "int32", data=np.array([[0, 0], [1, 1], [2, 0], [0, 0]]))
    y = mb.tensor("y", [1, 5, 5, 2], "int8", scale=0.05, zero_point=4)
    mb.op("PAD", [x, p], [y])
    return [x], [y]


def _mean(mb: ModelBuilder, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    x = mb.tensor("x", [1, 4, 4, 3], "int8", scale=0.05, zero_point=-1)
    a = mb.tensor("axes", [2], "int32", data=np.array([1, 2]))
    y = mb.tensor("y", [1, 1, 1, 3], "int8", scale=0.03, zero_point=2)
    mb.op("MEAN", [x, a], [y], keep_dims=True)
    return [x], [y]


SINGLE_OP_BUILDERS: dict[str, Callable[[ModelBuilder, np.random.Generator], tuple[list[int], list[int]]]] = {
    "CONV_2D": _conv2d,
    "DEPTHWISE_CONV_2D": _depthwise,
    "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": _pool("AVERAGE_POOL_2D"),
    "MAX_POOL_2D": _pool("MAX_POOL_2D"),
    "ADD": _binary("ADD", "RELU"),
    "SUB": _binary("SUB", "NONE"),  # negative results too: their rounding is where SUB can differ
    "MUL": _binary("MUL", "RELU6"),
    "RESHAPE": _reshape,
    "SQUEEZE": _squeeze,
    "SOFTMAX": _unary("SOFTMAX", 1 / 256, -128, beta=1.0),
    "LOGISTIC": _unary("LOGISTIC", 1 / 256, -128),
    "TANH": _unary("TANH", 1 / 128, 0),
    "RELU": _unary("RELU", 0.05, -6),
    "RELU6": _unary("RELU6", 0.05, -128),
    "QUANTIZE": _quantize,
    "DEQUANTIZE": _dequantize,
    "CONCATENATION": _concatenation,
    "PAD": _pad,
    "MEAN": _mean,
}


def single_op_model(builtin: str) -> bytes:
    mb = ModelBuilder()
    inputs, outputs = SINGLE_OP_BUILDERS[builtin](mb, np.random.default_rng(len(builtin)))
    return mb.build(inputs, outputs)


@functools.cache
def seed_models() -> dict[str, bytes]:
    """Every seed by name, in a fixed order (case numbers depend on it)."""
    models = {name: path.read_bytes() for name, path in MODEL_FILES.items()}
    models.update({builtin.lower(): single_op_model(builtin) for builtin in SINGLE_OP_BUILDERS})
    models.update({builtin.lower(): build() for builtin, build in MODEL_SEEDS.items()})
    return models
