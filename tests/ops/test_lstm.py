"""UNIDIRECTIONAL_SEQUENCE_LSTM against TFLite Micro over streams of calls, the hidden and cell state carried
across them: float32 within the ULP bound of mote's own sigmoid and tanh, int8 (int16 cell) and 16x8 bit for bit;
batch-major and time-major, one batch and several; the reference, the generated C (sanitized) and model_reset()."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops import OPS, lstm, lstm_blocked
from mote.ops.lstm_blocked import block_widths
from mote.ops.registry import Core
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.reset_driver import run_twice, split_passes

CALLS = 6
GATES = "ifco"  # TFLite's order: input, forget, cell, output
# float32: mote's tanh is correctly rounded here, the C library's (which TFLite Micro calls) is 1 ULP off for
# about a fifth of inputs; the recurrence carries such differences on, and near 0 they are many ULP of the
# value. The outputs (tanh(c) * o, within [-1, 1]) stay within 4 ULP of 1.0 of TFLite Micro's (measured: 1.5).
FLOAT_ABSOLUTE = 4 * 2.0**-23


def lstm_model(dtype: str = "float32", batches: int = 2, steps: int = 3, size: int = 5, units: int = 4,
               time_major: bool = False, cell_clip: float = 0.0, cell_scale: float = 2.0**-11,
               seed: int = 0, w_scales: tuple[float, ...] = (0.01,) * 8, x_q: tuple[float, int] | None = None,
               h_q: tuple[float, int] | None = None, asymmetric_quantize_inputs: bool = False) -> bytes:
    """A single-op model as the TFLite converter writes it: 24 inputs (absent peepholes, projection and layer
    norm as -1), variable hidden and cell state and, for integer models, the five intermediate tensors that
    carry the gate scales (which TFLite Micro does not read: it fixes the gates at 2^-12)."""
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    xshape = [steps, batches, size] if time_major else [batches, steps, size]
    yshape = [steps, batches, units] if time_major else [batches, steps, units]
    intermediates: list[int] = []
    if dtype == "float32":
        def normal(*shape: int, scale: float = 0.5) -> np.ndarray:
            return (rng.normal(size=shape) * scale).astype(np.float32)
        x = mb.tensor("x", xshape, "float32")
        w = [mb.tensor(f"w_{g}", [units, size], "float32", data=normal(units, size)) for g in GATES]
        r = [mb.tensor(f"r_{g}", [units, units], "float32", data=normal(units, units)) for g in GATES]
        b = [mb.tensor(f"b_{g}", [units], "float32", data=normal(units, scale=1.0)) for g in GATES]
        h = mb.tensor("h", [batches, units], "float32", variable=True)
        c = mb.tensor("c", [batches, units], "float32", variable=True)
        y = mb.tensor("y", yshape, "float32")
    else:
        wide = dtype == "int16"
        x_scale, x_zero = x_q or (0.05, 0 if wide else 3)
        h_scale, h_zero = h_q or ((2.0**-15, 0) if wide else (2.0**-7, -2))
        x = mb.tensor("x", xshape, dtype, scale=x_scale, zero_point=x_zero)
        w = [mb.tensor(f"w_{g}", [units, size], "int8", scale=s, zero_point=0,
                       data=rng.integers(-127, 128, (units, size))) for g, s in zip(GATES, w_scales[:4])]
        r = [mb.tensor(f"r_{g}", [units, units], "int8", scale=s, zero_point=0,
                       data=rng.integers(-127, 128, (units, units))) for g, s in zip(GATES, w_scales[4:])]
        b = [mb.tensor(f"b_{g}", [units], "int64" if wide else "int32", scale=x_scale * s, zero_point=0,
                       data=rng.integers(-3000, 3000, units)) for g, s in zip(GATES, w_scales[:4])]
        h = mb.tensor("h", [batches, units], dtype, scale=h_scale, zero_point=h_zero, variable=True)
        c = mb.tensor("c", [batches, units], "int16", scale=cell_scale, zero_point=0, variable=True)
        y = mb.tensor("y", yshape, dtype, scale=h_scale, zero_point=h_zero)
        intermediates = [mb.tensor(f"{g}_gate", [0], "int16", scale=2.0**-12, zero_point=0) for g in GATES]
        intermediates.append(mb.tensor("effective_hidden", [0], dtype, scale=0.007, zero_point=h_zero))
    inputs = [x, *w, *r, -1, -1, -1, *b, -1, -1, h, c, -1, -1, -1, -1]
    mb.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], intermediates=intermediates,
          fused_activation_function="TANH", cell_clip=cell_clip, time_major=time_major,
          asymmetric_quantize_inputs=asymmetric_quantize_inputs)
    return mb.build([x], [y])


def stream(model: bytes, graph: Graph, calls: int = CALLS) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    """Random inputs and TFLite Micro's outputs for them, run in order on one interpreter."""
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    inputs, outputs = [], []
    for k in range(calls):
        frame = random_inputs(graph, k)
        if graph.inputs[0].dtype == np.float32:
            frame = {name: value * np.float32(2.0) for name, value in frame.items()}
        interp.set_input(frame[graph.inputs[0].name], 0)
        interp.invoke()
        inputs.append(frame)
        outputs.append(interp.get_output(0).reshape(graph.outputs[0].shape))
    return inputs, outputs


def assert_close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    if got.dtype == np.float32:
        distance = float(np.abs(got - want).max())
        assert distance <= FLOAT_ABSOLUTE, f"{what}: {distance:g} from TFLite Micro"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


CASES = [("float32", False, 2, 0.0), ("float32", True, 3, 0.0), ("float32", False, 1, 0.6),
         ("int8", False, 2, 0.0), ("int8", True, 3, 0.0), ("int8", False, 1, 0.4),
         ("int16", False, 2, 0.0), ("int16", True, 2, 0.3)]


@pytest.mark.parametrize("dtype,time_major,batches,cell_clip", CASES)
def test_reference_follows_tflm_over_a_stream(dtype: str, time_major: bool, batches: int, cell_clip: float) -> None:
    model = lstm_model(dtype, batches=batches, time_major=time_major, cell_clip=cell_clip)
    graph = load_tflite(model, "lstm")
    inputs, expected = stream(model, graph)
    carried = reset_state(graph)
    outputs = [interpret(graph, frame, carried)["y"] for frame in inputs]
    for k, (got, want) in enumerate(zip(outputs, expected)):
        assert_close(got, want, f"call {k}")
    assert len({o.tobytes() for o in outputs}) == CALLS, "the test stream should not be constant"
    if dtype != "float32":
        info = np.iinfo(outputs[0].dtype)
        assert np.mean([np.isin(o, (info.min, info.max)).mean() for o in outputs]) < 0.3, "outputs mostly saturated"


def _libm(name: str) -> Callable[[np.ndarray], np.ndarray]:
    path = ctypes.util.find_library("m")
    if path is None:
        pytest.skip("no C math library to compare with")
    function = getattr(ctypes.CDLL(path), name)
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]

    def elementwise(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float32)
        return np.array([function(float(v)) for v in x.ravel()], np.float32).reshape(x.shape)
    return elementwise


@pytest.mark.parametrize("time_major,cell_clip", [(False, 0.0), (True, 1.5)])
def test_float_order_is_tflite_micros(time_major: bool, cell_clip: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the C library's tanhf and expf in place of mote's own, the float32 reference equals TFLite Micro bit
    for bit: every other difference is the functions', none the order of operations'."""
    monkeypatch.setattr(lstm, "tanhf", _libm("tanhf"))
    monkeypatch.setattr(lstm, "expf", _libm("expf"))
    model = lstm_model("float32", batches=3, steps=5, size=6, units=7, time_major=time_major, cell_clip=cell_clip)
    graph = load_tflite(model, "lstm")
    inputs, expected = stream(model, graph)
    carried = reset_state(graph)
    for k, (frame, want) in enumerate(zip(inputs, expected)):
        got = interpret(graph, frame, carried)["y"]
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32), err_msg=f"call {k}")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_integer_quantizations_bit_exact(dtype: str, seed: int) -> None:
    """Per-gate weight scales, zero points and cell scales the converter may write (powers of two from 2^-15,
    whose tanh shifts right, to 2^-8; one that is no power of two, which TFLite Micro rounds to one), clips."""
    rng = np.random.default_rng(100 + seed)
    wide = dtype == "int16"
    cell_scale = [2.0**-15, 2.0**-12, 2.0**-11, 2.0**-9, 2.0**-8, 0.0003][seed]
    model = lstm_model(dtype, batches=int(rng.integers(1, 4)), steps=int(rng.integers(1, 6)),
                       size=int(rng.integers(1, 12)), units=int(rng.integers(1, 10)), time_major=bool(seed % 2),
                       cell_clip=[0.0, 0.01, 0.7, 3.0, 100.0, 0.2][seed], cell_scale=cell_scale, seed=seed,
                       w_scales=tuple(float(v) for v in rng.uniform(0.002, 0.03, 8)),
                       x_q=(float(rng.uniform(0.01, 0.1)), 0 if wide else int(rng.integers(-20, 21))),
                       h_q=(float(rng.uniform(2.0**-16, 2.0**-13)), 0) if wide else
                       (float(rng.uniform(0.003, 0.02)), int(rng.integers(-10, 11))))
    graph = load_tflite(model, "lstm")
    inputs, expected = stream(model, graph)
    carried = reset_state(graph)
    for k, (frame, want) in enumerate(zip(inputs, expected)):
        np.testing.assert_array_equal(interpret(graph, frame, carried)["y"], want, err_msg=f"call {k}")


@pytest.mark.parametrize("dtype,time_major,cell_scale", [("float32", False, 0.0), ("int8", True, 2.0**-11),
                                                          ("int8", False, 2.0**-9), ("int16", False, 2.0**-15)])
def test_generated_c_follows_the_stream_and_resets(dtype: str, time_major: bool, cell_scale: float,
                                                   tmp_path: Path) -> None:
    model = lstm_model(dtype, batches=2, steps=4, time_major=time_major, cell_clip=0.5,
                       cell_scale=cell_scale or 2.0**-11)
    graph = load_tflite(model, "lstm")
    compiled = compile_graph(graph)
    assert "void model_reset(void);" in compiled.sources["model.h"]
    binary = build_host(compiled, tmp_path / "project", sanitize=True)
    inputs, expected = stream(model, graph)
    carried = reset_state(graph)
    reference = [interpret(graph, frame, carried)["y"] for frame in inputs]
    outputs, _ = binary.run_stream(inputs)
    for k, (got, want, ref) in enumerate(zip(outputs, expected, reference)):
        np.testing.assert_array_equal(got["y"], ref, err_msg=f"call {k}: the C against the reference")
        assert_close(got["y"], want, f"call {k}")
    # a driver that runs the stream twice with model_reset() between gets the same outputs twice
    first, second = split_passes(run_twice(binary, tmp_path / "project", [f["x"] for f in inputs]))
    assert first == second == b"".join(o["y"].tobytes() for o in outputs)


# The scalar cores' int8 and 16x8 kernels (blocks of 16, 8 and 4 gate rows): every block width, odd and even
# depths (the input's and the recurrent one, units), several batch rows at once (time_major), clips, cell scales.
BLOCKED = [dict(batches=1, steps=5, size=28, units=20, time_major=False, cell_clip=0.0, cell_scale=2.0**-11),
           dict(batches=3, steps=3, size=7, units=7, time_major=True, cell_clip=0.5, cell_scale=2.0**-9),
           dict(batches=2, steps=4, size=4, units=1, time_major=False, cell_clip=0.0, cell_scale=2.0**-15),
           dict(batches=1, steps=2, size=1, units=9, time_major=True, cell_clip=2.0, cell_scale=2.0**-12)]


def test_blocked_cases_take_every_block_width() -> None:
    widths = {w for case in BLOCKED for w in block_widths(4 * int(case["units"]))}  # type: ignore[call-overload]
    assert widths == {16, 8, 4}


@pytest.mark.parametrize("case", range(len(BLOCKED)))
@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_blocked_kernels_follow_the_stream_sanitized(dtype: str, case: int, tmp_path: Path) -> None:
    quantization = {"x_q": (0.04, -5 + case), "h_q": (0.008, 3 - case)} if dtype == "int8" else {}
    model = lstm_model(dtype, seed=case, **quantization, **BLOCKED[case])  # type: ignore[arg-type]
    graph = load_tflite(model, "lstm")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert compiled.layers[0].kernel == f"mote_lstm_blocked_s{8 if dtype == 'int8' else 16}"
    binary = build_host(compiled, tmp_path / "project", sanitize=True)
    inputs, expected = stream(model, graph)
    outputs, _ = binary.run_stream(inputs)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_array_equal(got["y"], want, err_msg=f"call {k}")
    first, second = split_passes(run_twice(binary, tmp_path / "project", [f["x"] for f in inputs]))
    assert first == second == b"".join(o["y"].tobytes() for o in outputs)


def test_16x8_sums_that_may_leave_int32_take_the_generic_kernel() -> None:
    graph = load_tflite(lstm_model("int16", **BLOCKED[1]), "lstm")  # type: ignore[arg-type]
    node = graph.nodes[0]
    params = OPS["unidirectional_sequence_lstm"].prepare(node)
    assert lstm_blocked.accepts_s16(node, params) is None
    bias = params.bias.copy()
    bias[2, 0] = 2**31 - 1000  # within int64, as TFLite Micro's sums are
    assert "int32" in (lstm_blocked.accepts_s16(node, replace(params, bias=bias)) or "")


def test_a_weight_of_minus_128_takes_the_generic_kernel(tmp_path: Path) -> None:
    """The paired products hold |w| <= 127 (what the converter writes); -128 goes to mote_lstm_s8, as exact."""
    model = bytearray(lstm_model("int8", **BLOCKED[1]))  # type: ignore[arg-type]
    unpacked = schema.ModelT.InitFromPackedBuf(model, 0)
    weights = next(t for t in unpacked.subgraphs[0].tensors if t.name == b"r_o")
    data = unpacked.buffers[weights.buffer].data
    data[3] = np.uint8(128)  # int8 -128
    builder = flatbuffers.Builder(1024)
    builder.Finish(unpacked.Pack(builder), file_identifier=b"TFL3")
    edited = bytes(builder.Output())
    graph = load_tflite(edited, "lstm")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert compiled.layers[0].kernel == "mote_lstm_s8"
    binary = build_host(compiled, tmp_path / "project", sanitize=True)
    inputs, expected = stream(edited, graph)
    for k, (got, want) in enumerate(zip(binary.run_stream(inputs)[0], expected)):
        np.testing.assert_array_equal(got["y"], want, err_msg=f"call {k}")


@pytest.mark.parametrize("dtype,case", [("int8", 0), ("int8", 1), ("int16", 0), ("int16", 1), ("float32", 1)])
def test_on_rv32_over_a_stream(dtype: str, case: int, tmp_path: Path) -> None:
    """The firmware (scalar kernels, soft float) carries the state across a stream and starts again after
    model_reset(): the integers bit for bit with TFLite Micro, float32 with mote's reference."""
    model = lstm_model(dtype, **BLOCKED[case])  # type: ignore[arg-type]
    graph = load_tflite(model, "lstm")
    inputs, expected = stream(model, graph)
    half = CALLS // 2
    carried, fresh = reset_state(graph), reset_state(graph)
    reference = [interpret(graph, frame, carried if k < half else fresh)["y"] for k, frame in enumerate(inputs)]
    firmware = build_rv32(compile_graph(graph), tmp_path / "fw", Rv32Config(cc="zig"))
    for k, result in enumerate(firmware.run_stream(inputs, resets=[half])):
        np.testing.assert_array_equal(result.outputs["y"], reference[k], err_msg=f"rv32, call {k}")
        if k < half:
            assert_close(result.outputs["y"], expected[k], f"rv32 against TFLite Micro, call {k}")


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_single_calls_match_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(lstm_model(dtype, batches=3, steps=2, size=7, units=5, time_major=dtype == "int16"), seeds=3,
                sanitize=True)


def test_asymmetric_quantize_inputs_is_a_hybrid_option_integer_models_ignore() -> None:
    """The option concerns hybrid models (float activations, int8 weights), which TFLite Micro does not run
    (refused below); it leaves a fully integer model's arithmetic unchanged, in TFLite Micro and in mote."""
    model = lstm_model("int8", asymmetric_quantize_inputs=True)
    graph = load_tflite(model, "lstm")
    inputs, expected = stream(model, graph)
    plain = lstm_model("int8")
    carried = reset_state(graph)
    for k, (frame, want, same) in enumerate(zip(inputs, expected, stream(plain, graph)[1])):
        np.testing.assert_array_equal(want, same, err_msg=f"call {k}: TFLite Micro")
        np.testing.assert_array_equal(interpret(graph, frame, carried)["y"], want, err_msg=f"call {k}")


def test_macs() -> None:
    graph = load_tflite(lstm_model("float32", batches=2, steps=3, size=5, units=4), "lstm")
    assert OPS["unidirectional_sequence_lstm"].macs(graph.nodes[0]) == 2 * 3 * 4 * 4 * (5 + 4)


def _variant(what: str) -> bytes:
    """A small LSTM changed in one way TFLite Micro's kernel does not take."""
    units, size = 3, 4
    quantized = what in ("per_channel", "bias64")
    wdtype = "int8" if quantized or what == "hybrid" else "float32"
    act = "int8" if quantized else "float32"
    q = {"scale": 0.05, "zero_point": 0} if quantized else {}
    wq = {"scale": [0.01, 0.02, 0.03], "zero_point": 0} if what == "per_channel" else (
        {"scale": 0.01, "zero_point": 0} if wdtype == "int8" else {})
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 2, size], act, **q)
    w = [mb.tensor(f"w{g}", [units, size], wdtype, data=np.ones((units, size)), **wq) for g in GATES]
    r = [mb.tensor(f"r{g}", [units, units], wdtype, data=np.ones((units, units)), **wq) for g in GATES]
    bdtype = ("int64" if what == "bias64" else "int32") if quantized else "float32"
    b = [mb.tensor(f"b{g}", [units], bdtype, data=np.zeros(units), **({"scale": 0.0005} if quantized else {}))
         for g in GATES]
    h = mb.tensor("h", [1, units], act, variable=what != "constant_state", **q)
    c = mb.tensor("c", [1, units], "int16" if quantized else "float32", variable=True,
                  **({"scale": 2.0**-11, "zero_point": 0} if quantized else {}))
    y = mb.tensor("y", [1, 2, units], act, **q)
    inputs = [x, *w, *r, -1, -1, -1, *b, -1, -1, h, c, -1, -1, -1, -1]
    extra = mb.tensor("extra", [units], "float32", data=np.ones(units))
    slot = {"peephole": 10, "projection_bias": 17, "layer_norm": 21}.get(what)
    if slot is not None:
        inputs[slot] = extra
    if what == "cifg":
        inputs[1] = inputs[5] = -1
    if what == "inputs_20":
        inputs = inputs[:20]
    graph_inputs = [x, h] if what == "constant_state" else [x]
    mb.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], fused_activation_function="RELU" if what == "relu" else "TANH",
          asymmetric_quantize_inputs=what == "hybrid")
    return mb.build(graph_inputs, [y])


@pytest.mark.parametrize("what,match", [
    ("peephole", "no peephole, projection or layer norm"), ("projection_bias", "no peephole, projection"),
    ("layer_norm", "no peephole, projection or layer norm"), ("cifg", r"input-gate weights \(input 1\) is missing"),
    ("hybrid", "a hybrid LSTM"), ("relu", "TANH only"), ("constant_state", "must be a variable tensor"),
    ("inputs_20", "has 20 inputs, the op takes 24"), ("per_channel", "per channel"), ("bias64", "is int64"),
])
def test_what_tflite_micro_does_not_run_is_refused(what: str, match: str) -> None:
    with pytest.raises(MoteError, match=match):
        load_tflite(_variant(what), "m")


def test_an_intermediate_out_of_range_is_a_damaged_file() -> None:
    model = bytearray(lstm_model("int8"))
    unpacked = schema.ModelT.InitFromPackedBuf(model, 0)
    unpacked.subgraphs[0].operators[0].intermediates[0] = 999
    builder = flatbuffers.Builder(1024)
    builder.Finish(unpacked.Pack(builder), file_identifier=b"TFL3")
    with pytest.raises(MoteError, match="intermediates refer to tensor 999"):
        load_tflite(bytes(builder.Output()), "m")


def test_text_form_lists_the_state_and_int64_biases() -> None:
    text = load_tflite(lstm_model("int16"), "lstm").dump()
    assert "state %h: i16[2,4]" in text and "state %c: i16[2,4]" in text and "const %b_i: i64[4]" in text
