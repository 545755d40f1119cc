"""LOGISTIC, TANH and SOFTMAX in float32 against TFLite Micro: the reference and the generated C agree bit
for bit (they share mote's exp and tanh), and both are within the ULP bound of TFLite Micro, which calls
the C library's functions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from mote.targets.host import build_host
from mote.tflm_match import ulp_distance

# The largest distance from TFLite Micro seen over these inputs (README, "Float semantics").
ULP_BOUND = {"LOGISTIC": 2, "TANH": 2, "SOFTMAX": 4}


def model(builtin: str, shape: list[int], **options: float) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "float32")
    y = mb.tensor("y", shape, "float32")
    mb.op(builtin, [x], [y], **options)
    return mb.build([x], [y])


def inputs_for(builtin: str, shape: list[int], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = {"LOGISTIC": 20.0, "TANH": 10.0, "SOFTMAX": 8.0}[builtin]
    x = (rng.standard_normal(shape) * rng.choice([0.01, 1.0, scale], shape)).astype(np.float32)
    return x


def tflm(data: bytes, x: np.ndarray) -> np.ndarray:
    interp = runtime.Interpreter.from_bytes(data, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    return interp.get_output(0).reshape(x.shape)


@pytest.mark.parametrize("builtin,shape,options", [
    ("LOGISTIC", [4, 1000], {}), ("TANH", [4, 1000], {}), ("SOFTMAX", [50, 10], {"beta": 1.0}),
    ("SOFTMAX", [3, 7, 33], {"beta": 0.37}),
])
def test_within_the_bound_of_tflite_micro(builtin: str, shape: list[int], options: dict[str, float],
                                          tmp_path: Path) -> None:
    data = model(builtin, shape, **options)
    graph = load_tflite(data, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=builtin == "SOFTMAX")
    for seed in range(2):
        x = inputs_for(builtin, shape, seed)
        reference = interpret(graph, {"x": x})["y"]
        c_output = binary.run({"x": x})[0]["y"]
        np.testing.assert_array_equal(c_output.view(np.int32), reference.view(np.int32))
        distance = ulp_distance(reference, tflm(data, x))
        assert distance.max() <= ULP_BOUND[builtin], f"{builtin}: {distance.max()} ULP from TFLite Micro"


def test_logistic_branches_match_tflite_micro_exactly_at_their_edges() -> None:
    data = model("LOGISTIC", [8])
    x = np.array([16.619047, 16.62, 17.0, -9.0, -9.0001, -50.0, -120.0, 0.0], np.float32)
    graph = load_tflite(data, "m")
    got = interpret(graph, {"x": x})["y"]
    assert got[1] == got[2] == 1.0 and got[6] == 0.0
    assert ulp_distance(got, tflm(data, x)).max() <= ULP_BOUND["LOGISTIC"]


def test_softmax_float_model_runs_through_check_model(check_model: Callable[..., object]) -> None:
    """A float model whose values come out identical: softmax of a row of equal values is exact."""
    data = model("SOFTMAX", [2, 4], beta=1.0)
    graph = load_tflite(data, "m")
    out = interpret(graph, {"x": np.zeros((2, 4), np.float32)})["y"]
    assert (out == np.float32(0.25)).all()
