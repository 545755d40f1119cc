"""LOG_SOFTMAX and L2_NORMALIZATION in float32, and ADD, SUB and MUL on int32, against TFLite Micro: the reference
and the generated C agree bit for bit, and with the interpreter (LOG_SOFTMAX within its ULP bound)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite_writer import ModelBuilder


@pytest.mark.parametrize("builtin,shape", [("LOG_SOFTMAX", [5, 10]), ("LOG_SOFTMAX", [2, 3, 17]),
                                           ("L2_NORMALIZATION", [4, 12]), ("L2_NORMALIZATION", [1, 2, 2, 8])])
def test_rows_match_tflite_micro(builtin: str, shape: list[int], check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "float32")
    y = mb.tensor("y", shape, "float32")
    mb.op(builtin, [x], [y])
    check_model(mb.build([x], [y]), seeds=3, sanitize=len(shape) == 2)


@pytest.mark.parametrize("builtin", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("activation", ["NONE", "RELU6"])
def test_int32_arithmetic_matches_tflite_micro(builtin: str, activation: str,
                                               check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    a = mb.tensor("a", [3, 4], "int32")
    b = mb.tensor("b", [4], "int32")
    y = mb.tensor("y", [3, 4], "int32")
    mb.op(builtin, [a, b], [y], fused_activation_function=activation)
    check_model(mb.build([a, b], [y]), seeds=2, sanitize=activation == "NONE")


def test_int32_small_values_are_exact(check_model: Callable[..., object]) -> None:
    """Random inputs span the whole int32 range (so sums wrap); these stay small."""
    mb = ModelBuilder()
    a = mb.tensor("a", [6], "int32", data=np.array([1, -2, 3, 40000, -5, 7]))
    b = mb.tensor("b", [6], "int32")
    y = mb.tensor("y", [6], "int32")
    mb.op("MUL", [a, b], [y])
    check_model(mb.build([b], [y]), seeds=2)
