"""L2_POOL_2D against TFLite Micro: identical (the square root is correctly rounded on both sides)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mote.frontend.tflite_writer import ModelBuilder


@pytest.mark.parametrize("padding,stride,activation", [("VALID", 2, "NONE"), ("SAME", 1, "RELU6"), ("SAME", 2, "RELU")])
def test_matches_tflite_micro(padding: str, stride: int, activation: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 7, 6, 3], "float32")
    out_h, out_w = ((7 - 3) // stride + 1, (6 - 2) // stride + 1) if padding == "VALID" else (-(-7 // stride),
                                                                                              -(-6 // stride))
    y = mb.tensor("y", [1, out_h, out_w, 3], "float32")
    mb.op("L2_POOL_2D", [x], [y], padding=padding, stride_h=stride, stride_w=stride, filter_height=3,
          filter_width=2, fused_activation_function=activation)
    check_model(mb.build([x], [y]), seeds=2, sanitize=stride == 1)
