"""Resource variables and CALL_ONCE against TFLite Micro, over streams of calls: a variable that accumulates
across calls from the value CALL_ONCE's init assigns, one that lives in an IF's branches; the reference and the
generated C (sanitized) identical with the interpreter, and model_reset() back to a fresh start."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from tests.ops.control_models import SHAPE, counter_in_branch_model, stateful_model
from tests.ops.test_control_flow import assert_stream
from tests.reset_driver import run_twice

FRAMES = 6


def _frames(dtype: str, seed: int, condition: bool = False) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    frames = []
    for k in range(FRAMES):
        x = rng.uniform(-1, 1, SHAPE).astype(np.float32) if dtype == "float32" else rng.integers(-9, 10, SHAPE)
        frame = {"x": np.asarray(x).astype(dtype)}
        if condition:
            frame["c"] = np.array([k % 3 != 1])
        frames.append(frame)
    return frames


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_a_variable_accumulates_across_calls(dtype: str, tmp_path: Path) -> None:
    model = stateful_model(dtype)
    frames = _frames(dtype, 3)
    outputs = assert_stream(model, frames, tmp_path)
    graph = load_tflite(model)
    zero = np.full(SHAPE, 3 if dtype == "int8" else 0, dtype)  # 0.0 (int8: its zero point)
    start = interpret(graph, {"x": zero})["y"]  # the first call sees the init's value
    assert np.all(start == (2.0 if dtype == "float32" else 43))
    assert len({o["y"].tobytes() for o in outputs}) == FRAMES


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_a_variable_in_the_branches_of_an_if(dtype: str, tmp_path: Path) -> None:
    outputs = assert_stream(counter_in_branch_model(dtype), _frames(dtype, 4, condition=True), tmp_path)
    assert np.array_equal(outputs[1]["y"], outputs[0]["y"])  # the else branch reads without adding


def test_model_reset_starts_over(tmp_path: Path) -> None:
    """model_reset() clears the state, CALL_ONCE's flag with it: the init runs again, as in a new interpreter."""
    model = stateful_model("int8")
    graph = load_tflite(model)
    frames = _frames("int8", 5)
    state = reset_state(graph)
    first = [interpret(graph, f, state)["y"] for f in frames]
    state = reset_state(graph)
    assert all(np.array_equal(a, interpret(graph, f, state)["y"]) for a, f in zip(first, frames))

    compiled = compile_graph(graph)
    assert "void model_reset(void);" in compiled.sources["model.h"]
    project = tmp_path / "project"
    binary = build_host(compiled, project, sanitize=True)
    assert run_twice(binary, project, [f["x"] for f in frames]) == 2 * b"".join(y.tobytes() for y in first)


def test_tflite_micros_reset_zeroes_the_variable_but_never_reruns_the_init() -> None:
    """Why model_reset() follows a new interpreter rather than TFLite Micro's Reset(): after Reset() the variable
    holds its zero point and CALL_ONCE, its flag kept, leaves it so."""
    model = stateful_model("int8")
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    x = np.ones(SHAPE, np.int8) * 5
    interp.set_input(x, 0)
    interp.invoke()
    assert np.all(interp.get_output(0) == 43 + 5 - 3)  # 43 from the init, x's 5 at zero point 3
    interp.reset()
    interp.set_input(x, 0)
    interp.invoke()
    assert np.all(interp.get_output(0) == 5)  # the zero point 3 plus x's 2: no init
