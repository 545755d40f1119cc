"""GRU cells written as ops (tests/gru_models.py: FULLY_CONNECTED, SPLIT, SPLIT_V, ADD, LOGISTIC, TANH, MUL,
SUB, CONCATENATION), one frame per call with the state fed back by the caller, against TFLite Micro over a
stream of frames: int8 and 16x8 bit for bit in mote's reference and in the generated C (sanitized); float32 op by op
on TFLite Micro's own intermediate values (identical, TANH within its stated ULP bound), and over the
stream within that bound at the state's scale."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gru_models import GruWeights, build, calibrate, features, quantize_input
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.ir import DType, Graph
from mote.ops import OPS
from mote.ops.float_math import ULP_BOUND
from mote.reference import interpret
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32
from mote.tflm_match import tflm_match, ulp_bound, ulp_distance

FRAMES = 30
INPUTS, UNITS = 16, 12
CELLS = [pytest.param(True, id="reset_after"), pytest.param(False, id="reset_before_concat")]


def gru(reset_after: bool, dtype: str) -> bytes:
    weights = GruWeights.random(INPUTS, UNITS, reset_after, seed=1)
    return build(weights, None if dtype == "float32" else calibrate(weights), dtype=dtype)


def tflm_stream(model: bytes, graph: Graph) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    """Each frame's inputs (x from the feature stream, h from TFLite Micro's previous output, reset to zero
    first) and TFLite Micro's new state for it."""
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    x_t, h_t = graph.inputs
    h = np.zeros(h_t.shape, np.float32)
    if h_t.dtype is not DType.FLOAT32:
        h = np.full(h_t.shape, h_t.zero_point, h_t.dtype.np)
    inputs, outputs = [], []
    for x in features(INPUTS, FRAMES, seed=7):
        frame = {"x": x if x_t.dtype is DType.FLOAT32 else quantize_input(x, model, "x"), "h": h}
        interp.set_input(frame["x"], 0)
        interp.set_input(frame["h"], 1)
        interp.invoke()
        h = interp.get_output(0).reshape(h_t.shape)
        inputs.append(frame)
        outputs.append(h)
    return inputs, outputs


@pytest.mark.parametrize("dtype", ["int8", pytest.param("int16", id="16x8")])
@pytest.mark.parametrize("reset_after", CELLS)
def test_integer_gru_stream_is_bit_exact(reset_after: bool, dtype: str, tmp_path: Path) -> None:
    model = gru(reset_after, dtype)
    graph = load_tflite(model, "gru")
    assert sorted({n.op for n in graph.nodes}) == sorted(
        {"fully_connected", "split", "add", "logistic", "tanh", "mul", "sub"}
        | ({"split_v"} if reset_after else {"concatenation"}))
    inputs, expected = tflm_stream(model, graph)
    # mote's reference with its own state fed back, call after call
    h = inputs[0]["h"]
    for k, frame in enumerate(inputs):
        h = interpret(graph, {"x": frame["x"], "h": h})["h_new"]
        np.testing.assert_array_equal(h, expected[k], err_msg=f"reference, frame {k}")
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(inputs)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_array_equal(got["h_new"], want, err_msg=f"generated C, frame {k}")
    # the stream exercises the cell: the state moves, and the gates are not stuck at a rail
    assert len({o.tobytes() for o in expected}) == FRAMES
    info = np.iinfo(graph.outputs[0].dtype.np)
    assert np.mean([np.isin(o, (info.min, info.max)).mean() for o in expected]) < 0.2


@pytest.mark.parametrize("reset_after", CELLS)
def test_int8_gru_on_rv32(reset_after: bool, tmp_path: Path) -> None:
    """The firmware (scalar kernels) on the virtual platform, frame by frame of TFLite Micro's stream: the
    model keeps no state of its own, so each frame is a run of its own."""
    model = gru(reset_after, "int8")
    graph = load_tflite(model, "gru")
    inputs, expected = tflm_stream(model, graph)
    firmware = build_rv32(compile_graph(graph), tmp_path / "fw", Rv32Config(cc="zig"))
    for k, result in enumerate(firmware.run_stream(inputs)):
        np.testing.assert_array_equal(result.outputs["h_new"], expected[k], err_msg=f"rv32, frame {k}")


@pytest.mark.parametrize("reset_after", CELLS)
def test_float_gru_ops_match_tflm_one_by_one(reset_after: bool) -> None:
    """Every op of the cell, given TFLite Micro's own values of its inputs, gives TFLite Micro's value of
    its output: identical, except TANH (mote's tanhf, not the C library's) within the stated bound."""
    weights = GruWeights.random(INPUTS, UNITS, reset_after, seed=1)
    model = build(weights, probe=True)
    graph = load_tflite(model, "gru_probe")
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    h = np.zeros((1, UNITS), np.float32)
    worst: dict[str, int] = {}
    for x in features(INPUTS, FRAMES, seed=7):
        interp.set_input(x, 0)
        interp.set_input(h, 1)
        interp.invoke()
        values = {"x": x, "h": h}
        values.update({t.name: interp.get_output(i).reshape(t.shape) for i, t in enumerate(graph.outputs)})
        for node in graph.nodes:
            op = OPS[node.op]
            args = [None if t is None else (t.data if t.is_const else values[t.name]) for t in node.inputs]
            for t, got in zip(node.outputs, op.reference(node, op.prepare(node), args)):
                distance = int(ulp_distance(np.asarray(got, np.float32).reshape(t.shape), values[t.name]).max())
                worst[node.op] = max(worst.get(node.op, 0), distance)
        h = values["h_new"]
    assert worst.pop("tanh") <= ULP_BOUND
    assert worst.pop("logistic") <= ULP_BOUND
    assert set(worst.values()) == {0}, worst


@pytest.mark.parametrize("reset_after", CELLS)
def test_float_gru_stream(reset_after: bool, tmp_path: Path) -> None:
    """Over the stream, the generated C gives the reference's bits, and both stay within the stated bound
    of TFLite Micro at the state's scale (|h| < 1: the bound's ULP at 1). Counted in ULP of each value,
    small states can lie further apart: 1 - z cancels where z is near 1."""
    model = gru(reset_after, "float32")
    (tmp_path / "gru.tflite").write_bytes(model)
    graph = load_tflite(model, "gru")
    inputs, expected = tflm_stream(model, graph)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(inputs)
    tolerance = ulp_bound(graph) * float(np.spacing(np.float32(1.0)))
    for k, (frame, got, want) in enumerate(zip(inputs, outputs, expected)):
        reference = interpret(graph, frame)["h_new"]
        np.testing.assert_array_equal(got["h_new"], reference, err_msg=f"generated C, frame {k}")
        assert float(np.abs(reference - want).max()) <= tolerance, f"frame {k}"
        # mote run's comparison says so too
        assert tflm_match(tmp_path / "gru.tflite", graph, frame, {"h_new": reference}).agrees, f"frame {k}"
    assert float(np.abs(np.stack(expected)).max()) < 1.0
