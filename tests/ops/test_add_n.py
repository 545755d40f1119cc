"""ADD_N on float32 and int8 against TFLite Micro, two to five inputs; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def add_n_model(dtype: str, count: int, shape: list[int], seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    q_in = {"scale": float(rng.uniform(0.01, 0.1)), "zero_point": int(rng.integers(-128, 128))} if dtype == "int8" \
        else {}
    q_out = {"scale": float(rng.uniform(0.02, 0.3)), "zero_point": int(rng.integers(-128, 128))} if dtype == "int8" \
        else {}
    mb = ModelBuilder()
    xs = [mb.tensor(f"x{k}", shape, dtype, **q_in) for k in range(count)]
    y = mb.tensor("y", shape, dtype, **q_out)
    mb.op("ADD_N", xs, [y])
    return mb.build(xs, [y])


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("count", [2, 3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_reference_matches_tflm(dtype: str, count: int, seed: int) -> None:
    model = add_n_model(dtype, count, [3, 7], seed)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, seed)
    expected = tflm_outputs(model, graph, inputs)["y"]
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], expected)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(add_n_model(dtype, 3, [4, 9], 1), seeds=2, sanitize=True)
