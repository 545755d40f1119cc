"""int8 DIV against TFLite Micro: every pair of values for a few quantizations (a zero divisor included),
broadcasting, fused activations; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def div_model(rng: np.random.Generator, a_shape: list[int], b_shape: list[int], activation: str = "NONE") -> bytes:
    def q() -> dict[str, object]:
        return {"scale": float(np.exp(rng.uniform(np.log(0.005), np.log(0.2)))),
                "zero_point": int(rng.integers(-100, 100))}
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, "int8", **q())
    b = mb.tensor("b", b_shape, "int8", **q())
    y = mb.tensor("y", list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape))), "int8", **q())
    mb.op("DIV", [a, b], [y], fused_activation_function=activation)
    return mb.build([a, b], [y])


@pytest.mark.parametrize("seed", range(6))
def test_every_pair_matches_tflm(seed: int) -> None:
    model = div_model(np.random.default_rng(seed), [256, 256], [256, 256])
    graph = load_tflite(model, "m")
    values = np.arange(-128, 128, dtype=np.int8)
    inputs = {"a": np.repeat(values[:, None], 256, axis=1), "b": np.repeat(values[None, :], 256, axis=0)}
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("activation", ["RELU", "RELU6"])
def test_broadcast_and_activation_match_tflm(activation: str) -> None:
    model = div_model(np.random.default_rng(9), [3, 4, 5], [5], activation)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, 0)
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


def test_c_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(div_model(np.random.default_rng(3), [4, 6], [6]), seeds=3, sanitize=True)
