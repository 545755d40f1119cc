"""AVERAGE_POOL_2D against TFLite Micro: random windows, strides, paddings and activations."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.avg_pool2d import round_div_away

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def out_len(size: int, filt: int, stride: int, padding: str) -> int:
    return (size + stride - 1) // stride if padding == "SAME" else (size - filt) // stride + 1


def pool_model(builtin: str, rng: np.random.Generator, out_scale_ratio: float = 1.0) -> bytes:
    """A single pooling model with random geometry; output quantization equals the input's unless told."""
    filt = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    hw = (int(rng.integers(filt[0], 13)), int(rng.integers(filt[1], 13)))
    stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    padding = str(rng.choice(["SAME", "VALID"]))
    batches, channels = int(rng.integers(1, 3)), int(rng.integers(1, 17))
    scale, zp = float(rng.uniform(0.01, 0.1)), int(rng.integers(-100, 80))
    mb = ModelBuilder()
    x = mb.tensor("x", [batches, *hw, channels], "int8", scale=scale, zero_point=zp)
    oh, ow = (out_len(s, f, st, padding) for s, f, st in zip(hw, filt, stride))
    y = mb.tensor("y", [batches, oh, ow, channels], "int8", scale=scale * out_scale_ratio, zero_point=zp)
    mb.op(builtin, [x], [y], padding=padding, stride_h=stride[0], stride_w=stride[1], filter_height=filt[0],
          filter_width=filt[1], fused_activation_function=str(rng.choice(ACTIVATIONS)))
    return mb.build([x], [y])


@pytest.mark.parametrize("seed", range(20))
def test_avg_pool2d_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    check_model(pool_model("AVERAGE_POOL_2D", np.random.default_rng(4000 + seed)), seeds=3)


def test_avg_pool2d_sanitized(check_model: Callable[..., object]) -> None:
    check_model(pool_model("AVERAGE_POOL_2D", np.random.default_rng(5)), seeds=1, sanitize=True)


def test_avg_pool2d_rounds_half_away_from_zero() -> None:
    total = np.array([5, -5, 4, -4, 7, -7, 0, 1, -1])
    count = np.array([2, 2, 8, 8, 2, 2, 3, 3, 3])
    assert round_div_away(total, count).tolist() == [3, -3, 1, -1, 4, -4, 0, 0, 0]


def test_avg_pool2d_rejects_requantization() -> None:
    model = pool_model("AVERAGE_POOL_2D", np.random.default_rng(6), out_scale_ratio=2.0)
    with pytest.raises(UnsupportedError, match="same quantization"):  # refused while loading
        load_tflite(model, "m")
