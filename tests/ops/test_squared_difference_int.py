"""SQUARED_DIFFERENCE on int8, int16 and int32 against TFLite Micro, broadcast and not; the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def squared_model(dtype: str, a_shape: list[int], b_shape: list[int], seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)

    def q(scale: float) -> dict[str, object]:
        if dtype == "int32":
            return {}
        return {"scale": scale, "zero_point": 0 if dtype == "int16" else int(rng.integers(-100, 100))}
    base = {"int8": 0.05, "int16": 3e-4, "int32": 1.0}[dtype]
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, dtype, **q(base * float(rng.uniform(0.5, 2))))
    b = mb.tensor("b", b_shape, dtype, **q(base * float(rng.uniform(0.5, 2))))
    out_shape = list(np.broadcast_shapes(tuple(a_shape), tuple(b_shape)))
    y = mb.tensor("y", out_shape, dtype, **q(base * base * float(rng.uniform(50, 200))))
    mb.op("SQUARED_DIFFERENCE", [a, b], [y])
    return mb.build([a, b], [y])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
@pytest.mark.parametrize("shapes", [([3, 5], [3, 5]), ([2, 3, 4], [4]), ([3, 1], [1, 6])], ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_reference_matches_tflm(dtype: str, shapes: tuple[list[int], list[int]], seed: int) -> None:
    model = squared_model(dtype, *shapes, seed=seed)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, seed)
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(squared_model(dtype, [2, 3, 4], [4]), seeds=2, sanitize=True)
