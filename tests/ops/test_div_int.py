"""int8 and int32 DIV against TFLite Micro: every pair of values for a few quantizations (a zero divisor included),
broadcasting, fused activations; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.errors import BuildError, MoteError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from mote.targets.host import build_host
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


def test_int32_division_truncates_and_fails_on_zero(tmp_path: Path) -> None:
    mb = ModelBuilder()
    a = mb.tensor("a", [8], "int32")
    b = mb.tensor("b", [8], "int32")
    y = mb.tensor("y", [8], "int32")
    mb.op("DIV", [a, b], [y])
    model = mb.build([a, b], [y])
    graph = load_tflite(model, "m")
    inputs = {"a": np.array([7, -7, 7, -7, 0, 2**31 - 1, -2**31, 5], np.int32),
              "b": np.array([2, 2, -2, -2, 3, -1, 7, 9], np.int32)}
    want = tflm_outputs(model, graph, inputs)["y"]
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], want)
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    np.testing.assert_array_equal(binary.run(inputs)[0]["y"], want)
    inputs["b"][3] = 0
    with pytest.raises(MoteError, match="division by zero"):
        interpret(graph, inputs)
    with pytest.raises(BuildError, match="model_run failed"):
        binary.run(inputs)
