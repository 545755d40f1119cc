"""SVDF against TFLite Micro over streams of frames: int8 with an int16 or int8 state, float32 with each
activation; the state carried across calls in the reference, in the generated C, and reset by model_reset()."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from tests.reset_driver import run_twice, split_passes

FRAMES = 12


def svdf_model(dtype: str, state: str = "int16", batches: int = 1, size: int = 12, filters: int = 8,
               memory: int = 5, rank: int = 2, activation: str = "NONE", seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    units = filters // rank
    mb = ModelBuilder()
    if dtype == "int8":
        x = mb.tensor("x", [batches, size], "int8", scale=0.05, zero_point=3)
        wf = mb.tensor("wf", [filters, size], "int8", scale=0.01, zero_point=0,
                       data=rng.integers(-127, 128, (filters, size)))
        time_range = 127 if state == "int8" else 4000
        wt = mb.tensor("wt", [filters, memory], state, scale=0.002, zero_point=0,
                       data=rng.integers(-time_range, time_range + 1, (filters, memory)))
        s_state = 0.01 if state == "int8" else 0.0005
        b = mb.tensor("b", [units], "int32", scale=s_state * 0.002, zero_point=0,
                      data=rng.integers(-3000, 3000, units))
        st = mb.tensor("state", [batches, filters * memory], state, scale=s_state,
                       zero_point=-4 if state == "int8" else 0, variable=True)
        y = mb.tensor("y", [batches, units], "int8", scale=0.2 if state == "int8" else 0.6, zero_point=-2)
    else:
        def normal(*shape: int) -> np.ndarray:
            return rng.normal(size=shape).astype(np.float32)
        x = mb.tensor("x", [batches, size], "float32")
        wf = mb.tensor("wf", [filters, size], "float32", data=normal(filters, size))
        wt = mb.tensor("wt", [filters, memory], "float32", data=normal(filters, memory))
        b = mb.tensor("b", [units], "float32", data=normal(units))
        st = mb.tensor("state", [batches, filters * memory], "float32", variable=True)
        y = mb.tensor("y", [batches, units], "float32")
    mb.op("SVDF", [x, wf, wt, b, st], [y], rank=rank, fused_activation_function=activation)
    return mb.build([x], [y])


def stream(model: bytes, frames: int = FRAMES) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    """Random input frames and TFLite Micro's outputs for them, run in order on one interpreter."""
    graph = load_tflite(model, "svdf")
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    inputs, outputs = [], []
    for k in range(frames):
        frame = random_inputs(graph, k)
        interp.set_input(frame[graph.inputs[0].name], 0)
        interp.invoke()
        inputs.append(frame)
        outputs.append(interp.get_output(0))
    return inputs, outputs


CASES = [("int8", "int16", "NONE"), ("int8", "int8", "NONE"), ("int8", "int16", "RELU"),
         ("float32", "", "NONE"), ("float32", "", "RELU"), ("float32", "", "RELU6"), ("float32", "", "RELU_N1_TO_1")]


@pytest.mark.parametrize("dtype,state,activation", CASES)
@pytest.mark.parametrize("batches,rank", [(1, 1), (2, 2)])
def test_reference_follows_tflm_over_a_stream(dtype: str, state: str, activation: str, batches: int,
                                              rank: int) -> None:
    model = svdf_model(dtype, state or "int16", batches, rank=rank, activation=activation)
    graph = load_tflite(model, "svdf")
    inputs, expected = stream(model)
    carried = reset_state(graph)
    outputs = [interpret(graph, frame, carried)["y"] for frame in inputs]
    for k, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_array_equal(got, want, err_msg=f"frame {k}")
    assert len({o.tobytes() for o in outputs}) > FRAMES // 2, "the test stream should not be constant"
    if dtype == "int8":
        assert np.mean([np.isin(o, (-128, 127)).mean() for o in outputs]) < 0.5, "outputs mostly saturated"


@pytest.mark.parametrize("dtype,state", [("int8", "int16"), ("int8", "int8"), ("float32", "")])
def test_generated_c_follows_the_stream_and_resets(dtype: str, state: str, tmp_path: Path) -> None:
    model = svdf_model(dtype, state or "int16", batches=2, rank=2, activation="RELU" if dtype == "float32" else "NONE")
    graph = load_tflite(model, "svdf")
    compiled = compile_graph(graph)
    assert "void model_reset(void);" in compiled.sources["model.h"]
    binary = build_host(compiled, tmp_path / "project", sanitize=True)
    inputs, expected = stream(model)
    outputs, _ = binary.run_stream(inputs)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_array_equal(got["y"], want, err_msg=f"frame {k}")
    # a driver that runs the stream twice with model_reset() between gets the same outputs twice
    first, second = split_passes(run_twice(binary, tmp_path / "project", [f["x"] for f in inputs]))
    assert first == second == b"".join(o["y"].tobytes() for o in outputs)


def test_single_calls_match_tflm(check_model: Callable[..., object]) -> None:
    check_model(svdf_model("int8", "int16", batches=2, rank=2), seeds=2)
    check_model(svdf_model("float32", batches=1, rank=1, activation="RELU6"), seeds=2)


def test_state_must_be_a_variable_tensor() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4], "float32")
    wf = mb.tensor("wf", [2, 4], "float32", data=np.ones((2, 4), np.float32))
    wt = mb.tensor("wt", [2, 3], "float32", data=np.ones((2, 3), np.float32))
    st = mb.tensor("state", [1, 6], "float32")  # not variable: a second model input, not state
    y = mb.tensor("y", [1, 2], "float32")
    mb.op("SVDF", [x, wf, wt, -1, st], [y], rank=1)
    with pytest.raises(Exception, match="must be a variable tensor"):
        load_tflite(mb.build([x, st], [y]), "m")
