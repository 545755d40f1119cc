"""ADD, SUB and MUL on int16 against TFLite Micro: broadcasting, scales of every ratio, zero points where the
interpreter allows them, each fused activation; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def arith_model(builtin: str, rng: np.random.Generator, a_shape: list[int], b_shape: list[int],
                activation: str = "NONE") -> bytes:
    zero = (lambda: 0) if builtin == "MUL" else (lambda: int(rng.integers(-300, 300)))
    scales = np.exp(rng.uniform(np.log(1e-4), np.log(1e-2), 3))
    if builtin == "MUL":
        scales[2] = scales[0] * scales[1] * 2 ** rng.uniform(4, 14)
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, "int16", scale=float(scales[0]), zero_point=zero())
    b = mb.tensor("b", b_shape, "int16", scale=float(scales[1]), zero_point=zero())
    y = mb.tensor("y", out_shape, "int16", scale=float(scales[2]), zero_point=zero())
    mb.op(builtin, [a, b], [y], fused_activation_function=activation)
    return mb.build([a, b], [y])


SHAPES = [([4, 6], [4, 6]), ([2, 3, 5], [5]), ([3, 1, 4], [1, 2, 1])]


@pytest.mark.parametrize("builtin", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("seed", range(4))
def test_reference_matches_tflm(builtin: str, shapes: tuple[list[int], list[int]], seed: int) -> None:
    rng = np.random.default_rng(seed)
    activation = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"][seed]
    model = arith_model(builtin, rng, *shapes, activation=activation)
    graph = load_tflite(model, "m")
    for k in range(2):
        inputs = random_inputs(graph, k)
        expected = tflm_outputs(model, graph, inputs)
        np.testing.assert_array_equal(interpret(graph, inputs)["y"], expected["y"])


@pytest.mark.parametrize("builtin", ["ADD", "SUB", "MUL"])
def test_c_matches_tflm(builtin: str, check_model: Callable[..., object]) -> None:
    check_model(arith_model(builtin, np.random.default_rng(3), [2, 3, 5], [3, 1]), seeds=2, sanitize=True)


def test_mul_with_a_zero_point_is_refused() -> None:
    mb = ModelBuilder()
    a = mb.tensor("a", [4], "int16", scale=0.01, zero_point=3)
    y = mb.tensor("y", [4], "int16", scale=0.01, zero_point=0)
    mb.op("MUL", [a, a], [y])
    with pytest.raises(Exception, match="requires 0"):
        load_tflite(mb.build([a], [y]), "m")
