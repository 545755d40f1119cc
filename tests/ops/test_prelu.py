"""PRELU against TFLite Micro: float32, int8 and int16 inputs (int8 alpha), alpha per channel or whole;
the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def prelu_model(dtype: str, x_shape: list[int], alpha_shape: list[int], seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    if dtype == "float32":
        x = mb.tensor("x", x_shape, "float32")
        a = mb.tensor("alpha", alpha_shape, "float32", data=rng.uniform(-0.5, 0.5, alpha_shape).astype(np.float32))
        y = mb.tensor("y", x_shape, "float32")
    else:
        zp = 0 if dtype == "int16" else int(rng.integers(-20, 20))
        s = 0.02 if dtype == "int8" else 3e-4
        x = mb.tensor("x", x_shape, dtype, scale=s, zero_point=zp)
        a = mb.tensor("alpha", alpha_shape, "int8", scale=0.004, zero_point=int(rng.integers(-10, 10)),
                      data=rng.integers(-128, 128, alpha_shape))
        y = mb.tensor("y", x_shape, dtype, scale=s * 1.5, zero_point=-zp)
    mb.op("PRELU", [x, a], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
@pytest.mark.parametrize("alpha_shape", [[1, 1, 5], [5], [3, 4, 5]], ids=str)
def test_reference_matches_tflm(dtype: str, alpha_shape: list[int]) -> None:
    model = prelu_model(dtype, [2, 3, 4, 5], alpha_shape)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, 0)
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(prelu_model(dtype, [2, 3, 4, 5], [1, 1, 5]), seeds=2, sanitize=True)
