"""Recurrent models written as ops (tests/gru_models.py: GRU cells from FULLY_CONNECTED, SPLIT, SPLIT_V, ADD,
LOGISTIC, TANH, MUL, SUB, CONCATENATION, QUANTIZE; an RNNoise-like denoiser of three of them), one frame per
call with the states fed back by the caller, against TFLite Micro over a stream of frames: int8 and 16x8 bit
for bit in mote's reference, in the generated C (sanitized) and on rv32; float32 op by op on TFLite Micro's
own intermediate values (identical, TANH within its stated ULP bound), and over the stream within that bound
at the states' scale."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gru_models import (
    Recurrent,
    build,
    calibrate,
    features,
    frames,
    gru,
    gru_keyword,
    gru_sequence,
    quantize_input,
    rnnoise,
)
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.ir import DType, Graph
from mote.ops import OPS
from mote.ops.float_math import ULP_BOUND
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32
from mote.tflm_match import tflm_match, ulp_bound, ulp_distance

FRAMES = 30
INPUTS, UNITS = 16, 12
CELLS = [pytest.param(True, id="reset_after"), pytest.param(False, id="reset_before_concat")]
Frames = list[dict[str, np.ndarray]]


def cell(reset_after: bool) -> Recurrent:
    return gru(INPUTS, UNITS, reset_after, seed=1)


def model_bytes(recurrent: Recurrent, dtype: str) -> bytes:
    return build(recurrent, None if dtype == "float32" else calibrate(recurrent), dtype=dtype)


def tflm_stream(model: bytes, graph: Graph, recurrent: Recurrent) -> tuple[Frames, Frames]:
    """Each frame's inputs (x from the feature stream, each state from TFLite Micro's previous output, at
    zero first) and TFLite Micro's outputs for it."""
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    x_t = graph.inputs[0]
    states = {t.name: np.full(t.shape, 0 if t.dtype is DType.FLOAT32 else t.zero_point, t.dtype.np)
              for t in graph.inputs[1:]}
    inputs, outputs = [], []
    for x in frames(recurrent, FRAMES, seed=7):
        frame = {"x": x if x_t.dtype is DType.FLOAT32 else quantize_input(x, model, "x"), **states}
        for i, t in enumerate(graph.inputs):
            interp.set_input(frame[t.name], i)
        interp.invoke()
        out = {t.name: interp.get_output(i).reshape(t.shape) for i, t in enumerate(graph.outputs)}
        states = {h_in: out[h_out] for h_in, h_out in recurrent.states.items()}
        inputs.append(frame)
        outputs.append(out)
    return inputs, outputs


def check_integer_stream(recurrent: Recurrent, dtype: str, tmp_path: Path) -> Graph:
    """mote's reference with its own states fed back, and the generated C (sanitized) on TFLite Micro's
    frames, bit for bit with TFLite Micro at every frame; the stream exercises the model."""
    model = model_bytes(recurrent, dtype)
    graph = load_tflite(model, "recurrent")
    inputs, expected = tflm_stream(model, graph, recurrent)
    states = {name: inputs[0][name] for name in recurrent.states}
    for k, frame in enumerate(inputs):
        got = interpret(graph, {"x": frame["x"], **states})
        for name, want in expected[k].items():
            np.testing.assert_array_equal(got[name], want, err_msg=f"reference, {name}, frame {k}")
        states = {h_in: got[h_out] for h_in, h_out in recurrent.states.items()}
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(inputs)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"generated C, {name}, frame {k}")
    info = np.iinfo(graph.outputs[0].dtype.np)
    for name in expected[0]:
        assert len({o[name].tobytes() for o in expected}) > 5, f"{name} should move with the stream"
        assert np.mean([np.isin(o[name], (info.min, info.max)).mean() for o in expected]) < 0.2, name
    return graph


@pytest.mark.parametrize("dtype", ["int8", pytest.param("int16", id="16x8")])
@pytest.mark.parametrize("reset_after", CELLS)
def test_integer_gru_stream_is_bit_exact(reset_after: bool, dtype: str, tmp_path: Path) -> None:
    graph = check_integer_stream(cell(reset_after), dtype, tmp_path)
    ops = {n.op for n in graph.nodes}
    assert {"fully_connected", "split", "add", "logistic", "tanh", "mul", "sub"} <= ops
    assert ({"split_v"} if reset_after else {"concatenation"}) <= ops


@pytest.mark.parametrize("dtype", ["int8", pytest.param("int16", id="16x8")])
def test_rnnoise_like_denoiser_stream_is_bit_exact(dtype: str, tmp_path: Path) -> None:
    """Three GRUs, concatenations of differently scaled tensors (requantized first), two outputs beside the
    three states."""
    graph = check_integer_stream(rnnoise(seed=2), dtype, tmp_path)
    assert [t.name for t in graph.outputs] == ["gains", "vad", "g1.h_new", "g2.h_new", "g3.h_new"]
    assert sum(n.op == "quantize" for n in graph.nodes) >= 2


@pytest.mark.parametrize("dtype", ["int8", pytest.param("int16", id="16x8")])
def test_gru_keyword_spotter_stream_is_bit_exact(dtype: str, tmp_path: Path) -> None:
    graph = check_integer_stream(gru_keyword(seed=4), dtype, tmp_path)
    assert [n.op for n in graph.nodes][-2:] == ["fully_connected", "softmax"]


@pytest.mark.parametrize("dtype", ["int8", pytest.param("int16", id="16x8")])
def test_unrolled_gru_sequence_stream_is_bit_exact(dtype: str, tmp_path: Path) -> None:
    """Three frames per call: UNPACK, three cells on one set of weights, PACK (its inputs requantized)."""
    graph = check_integer_stream(gru_sequence(seed=5), dtype, tmp_path)
    assert {"unpack", "pack"} <= {n.op for n in graph.nodes}
    weights = {t for n in graph.nodes if n.op == "fully_connected" for t in n.inputs[1:2]}
    assert len(weights) == 2, "the steps share the input and the recurrent weights"


RV32_MODELS = [pytest.param(cell(True), "int8", id="reset_after"),
               pytest.param(cell(False), "int8", id="reset_before_concat"),
               pytest.param(gru_keyword(seed=4), "int8", id="keyword"),
               pytest.param(rnnoise(seed=2), "int8", id="rnnoise"),
               pytest.param(gru_keyword(seed=4), "int16", id="keyword-16x8"),
               pytest.param(gru_keyword(seed=4), "float32", id="keyword-float32")]


@pytest.mark.parametrize("recurrent,dtype", RV32_MODELS)
def test_on_rv32(recurrent: Recurrent, dtype: str, tmp_path: Path) -> None:
    """The firmware (scalar kernels; soft float) on the virtual platform, frame by frame of TFLite Micro's
    stream: integers bit for bit with TFLite Micro, float32 bit for bit with mote's reference (so within the
    bound of TFLite Micro). The model keeps no state of its own, so each frame is a run of its own."""
    model = model_bytes(recurrent, dtype)
    graph = load_tflite(model, "recurrent")
    inputs, expected = tflm_stream(model, graph, recurrent)
    if dtype == "float32":
        expected = [interpret(graph, frame) for frame in inputs]
    firmware = build_rv32(compile_graph(graph), tmp_path / "fw", Rv32Config(cc="zig"))
    for k, result in enumerate(firmware.run_stream(inputs)):
        for name, want in expected[k].items():
            np.testing.assert_array_equal(result.outputs[name], want, err_msg=f"rv32, {name}, frame {k}")


@pytest.mark.parametrize("reset_after", CELLS)
def test_float_gru_ops_match_tflm_one_by_one(reset_after: bool) -> None:
    """Every op of the cell, given TFLite Micro's own values of its inputs, gives TFLite Micro's value of
    its output: identical, except TANH (mote's tanhf, not the C library's) within the stated bound."""
    model = build(cell(reset_after), probe=True)
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


@pytest.mark.parametrize("recurrent", [pytest.param(cell(True), id="reset_after"),
                                       pytest.param(cell(False), id="reset_before_concat"),
                                       pytest.param(rnnoise(seed=2), id="rnnoise"),
                                       pytest.param(gru_sequence(seed=5), id="sequence")])
def test_float_stream(recurrent: Recurrent, tmp_path: Path) -> None:
    """Over the stream, the generated C gives the reference's bits, and both stay within the stated bound
    of TFLite Micro at the outputs' scale (|h| < 1: the bound's ULP at 1). Counted in ULP of each value,
    small states can lie further apart: 1 - z cancels where z is near 1."""
    model = model_bytes(recurrent, "float32")
    (tmp_path / "model.tflite").write_bytes(model)
    graph = load_tflite(model, "recurrent")
    inputs, expected = tflm_stream(model, graph, recurrent)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(inputs)
    tolerance = ulp_bound(graph) * float(np.spacing(np.float32(1.0)))
    for k, (frame, got, want) in enumerate(zip(inputs, outputs, expected)):
        reference = interpret(graph, frame)
        for name in want:
            np.testing.assert_array_equal(got[name], reference[name], err_msg=f"generated C, {name}, frame {k}")
            assert float(np.abs(reference[name] - want[name]).max()) <= tolerance, f"{name}, frame {k}"
            assert float(np.abs(want[name]).max()) < 1.0
        # mote run's comparison says so too
        assert tflm_match(tmp_path / "model.tflite", graph, frame, reference).agrees, f"frame {k}"


def state_in_a_variable_tensor(model: bytes) -> bytes:
    """The GRU keyword spotter with its state kept in the model: `h` made a variable tensor that the cell's
    last ADD writes, instead of an input fed back from an output. The converter never writes this (it marks
    variable tensors only for SVDF's and the LSTM and RNN ops' state), but TFLite Micro runs it."""
    import flatbuffers
    import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

    m = schema.ModelT.InitFromPackedBuf(model, 0)
    sub = m.subgraphs[0]
    index = {t.name.decode(): i for i, t in enumerate(sub.tensors)}
    h, h_new = index["h"], index["g.h_new"]
    sub.tensors[h].isVariable = True
    for op in sub.operators:
        op.inputs = [h if i == h_new else i for i in op.inputs]
        op.outputs = [h if i == h_new else i for i in op.outputs]
    sub.inputs = [i for i in sub.inputs if i != h]
    sub.outputs = [i for i in sub.outputs if i != h_new]
    builder = flatbuffers.Builder(1024)
    builder.Finish(m.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def test_state_in_a_variable_tensor_is_carried_across_calls(tmp_path: Path) -> None:
    """TFLite Micro keeps a variable tensor that an ordinary op writes across calls; so does mote (the tensor
    lives in the state area): the int8 keyword spotter with its state inside equals, call by call, the same
    model with the state fed back by the caller, in the interpreter, mote's reference and the sanitized C."""
    recurrent = gru_keyword(seed=4)
    model = model_bytes(recurrent, "int8")
    inside = state_in_a_variable_tensor(model)
    inputs, expected = tflm_stream(model, load_tflite(model, "keyword"), recurrent)
    graph = load_tflite(inside, "keyword")
    xs = [{"x": frame["x"]} for frame in inputs]
    interp = runtime.Interpreter.from_bytes(inside, arena_size=1 << 20)
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    outputs, _ = binary.run_stream(xs)
    carried = reset_state(graph)
    for k, x in enumerate(xs):
        interp.set_input(x["x"], 0)
        interp.invoke()
        want = expected[k]["probs"]
        np.testing.assert_array_equal(interp.get_output(0).reshape(want.shape), want, err_msg=f"TFLM, frame {k}")
        np.testing.assert_array_equal(interpret(graph, x, carried)["probs"], want, err_msg=f"reference, frame {k}")
        np.testing.assert_array_equal(outputs[k]["probs"], want, err_msg=f"generated C, frame {k}")
