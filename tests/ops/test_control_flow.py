"""IF and WHILE against TFLite Micro: both branches of an IF (int8 and float32 bodies), a WHILE whose trip count
is an input (none, one and several iterations); the reference interpreter and the generated C (sanitized)
identical with the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.errors import MoteError, UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Node, Tensor
from mote.ops import OPS, while_loop
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from tests.ops.control_models import SHAPE, if_model, nested_model, while_model

Frames = list[dict[str, np.ndarray]]


def tflm_stream(model: bytes, frames: Frames) -> list[dict[str, np.ndarray]]:
    """TFLite Micro's outputs for the frames, run in order on one interpreter."""
    graph = load_tflite(model, "control")
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    outputs = []
    for frame in frames:
        for i, t in enumerate(graph.inputs):
            interp.set_input(frame[t.name], i)
        interp.invoke()
        outputs.append({t.name: np.array(interp.get_output(i)).reshape(t.shape) for i, t in enumerate(graph.outputs)})
    return outputs


def assert_stream(model: bytes, frames: Frames, tmp_path: Path) -> list[dict[str, np.ndarray]]:
    """Reference and generated C (sanitized) give TFLite Micro's outputs, frame by frame, state carried."""
    graph = load_tflite(model, "control")
    expected = tflm_stream(model, frames)
    state = reset_state(graph)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    generated, _ = binary.run_stream(frames)
    for k, (frame, want) in enumerate(zip(frames, expected)):
        got = interpret(graph, frame, state)
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=f"reference, frame {k}, {name}")
            np.testing.assert_array_equal(generated[k][name], value, err_msg=f"generated C, frame {k}, {name}")
    return expected


def _values(dtype: str, rng: np.random.Generator, low: int = -128, high: int = 128) -> np.ndarray:
    if dtype == "float32":
        return rng.uniform(-1, 1, SHAPE).astype(np.float32)
    return rng.integers(low, high, SHAPE).astype(dtype)


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_if_takes_both_branches(dtype: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frames = [{"c": np.array([c]), "x": _values(dtype, rng), "z": _values(dtype, rng)}
              for c in (True, False, False, True)]
    outputs = assert_stream(if_model(dtype), frames, tmp_path)
    for frame, out in zip(frames, outputs):  # the branches differ on these inputs: each one ran
        other = {"c": np.array([not frame["c"][0]]), "x": frame["x"], "z": frame["z"]}
        assert not np.array_equal(interpret(load_tflite(if_model(dtype)), other)["y"], out["y"])


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_while_runs_as_many_times_as_the_input_says(dtype: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    counts = [0, 1, 4, 2, 7]
    frames = [{"n": np.array([n], dtype=np.int32), "x": _values(dtype, rng, -6, 6)} for n in counts]
    outputs = assert_stream(while_model(dtype), frames, tmp_path)
    assert [int(o["i"][0]) for o in outputs] == counts


def test_generated_c_reads_as_control_flow() -> None:
    compiled = compile_graph(load_tflite(while_model("int8")))
    model_c = compiled.sources["model.c"]
    assert "static int subgraph1(int8_t *frame, const int32_t *input0" in model_c
    assert "for (;;) {" in model_c and "if (status != MOTE_OK || !more) break;" in model_c
    assert [layer.kernel for layer in compiled.layers] == ["subgraph1, subgraph2"]
    compiled = compile_graph(load_tflite(if_model("float32")))
    assert "if (((bool *)ARENA(" in compiled.sources["model.c"]
    assert compiled.layers[0].scratch_bytes > 0  # the branches' frame, lent by the IF layer


def test_nested_control_flow_and_shared_branches(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    frames = [{"n": np.array([n], dtype=np.int32), "c": np.array([c]), "x": _values("float32", rng)}
              for n, c in ((0, True), (1, False), (3, True), (5, True), (2, False))]
    outputs = assert_stream(nested_model(), frames, tmp_path)
    assert [int(o["i"][0]) for o in outputs] == [0, 1, 3, 5, 2]
    graph = load_tflite(nested_model())
    assert len(graph.subgraphs()) == 5  # the shared branches once each
    model_c = compile_graph(graph).sources["model.c"]
    assert model_c.count("static int subgraph") == 5


def _constant_branch_model() -> bytes:
    """A scalar condition; the then branch passes x through, the else branch gives a constant."""
    mb = ModelBuilder()
    c, x, y = mb.tensor("c", [], "bool"), mb.tensor("x", [3], "int16"), mb.tensor("y", [3], "int16")
    mb.op("IF", [c, x], [y], then_subgraph_index=1, else_subgraph_index=2)
    mb.subgraph("then")
    a = mb.tensor("a", [3], "int16")
    mb.io([a], [a])
    mb.subgraph("else")
    a, k = mb.tensor("a", [3], "int16"), mb.tensor("k", [3], "int16", data=np.array([7, -300, 32767]))
    mb.io([a], [k])
    return mb.build([c, x], [y])


def test_a_branch_may_pass_its_input_through_or_give_a_constant(tmp_path: Path) -> None:
    frames = [{"c": np.array(c), "x": np.array([1, 2, 3], np.int16)} for c in (True, False)]
    outputs = assert_stream(_constant_branch_model(), frames, tmp_path)
    assert outputs[0]["y"].tolist() == [1, 2, 3] and outputs[1]["y"].tolist() == [7, -300, 32767]


def test_state_is_never_taken_for_a_loop_carried_input() -> None:
    """The state a loop's subgraphs touch follows its inputs; were one carried input missing, that state must
    not stand in for it."""
    node = load_tflite(while_model("int8")).nodes[0]
    acc = node.inputs[3]
    assert acc is not None
    state = Tensor("v", acc.shape, acc.dtype, acc.quant, variable=True)
    with pytest.raises(UnsupportedError, match="'v'.* is state"):
        OPS["while"].check(Node("while", "w", [*node.inputs[:3], state], node.outputs, node.attrs))


def test_a_runaway_loop_stops_the_reference_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trip count set by a hostile input: mote run interprets the model first, and stops there."""
    monkeypatch.setattr(while_loop, "ITERATION_LIMIT", 50)
    graph = load_tflite(while_model("int8"), "control")
    frame = {"n": np.array([51], dtype=np.int32), "x": np.zeros(SHAPE, np.int8)}
    with pytest.raises(MoteError, match="still true after 50 iterations"):
        interpret(graph, frame)
    frame["n"][0] = 50
    assert int(interpret(graph, frame)["i"][0]) == 50
