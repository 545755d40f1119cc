"""A streaming keyword spotter, one frame of audio features per call with its memory kept across calls
(SVDF -> FULLY_CONNECTED -> SVDF -> FULLY_CONNECTED -> SOFTMAX in int8, like TFLite Micro's SVDF keyword
models), synthesized here and quantized as the converter quantizes it from a float twin's ranges. A stream
of frames matches TFLite Micro call by call in mote's reference, in the sanitized host C and in the rv32
firmware on the virtual platform; model_reset() between two passes of the stream replays the first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gru_models import asymmetric, features
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret, reset_state
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.reset_driver import run_twice

FRAMES = 30
FEATURES = 40
# (kind, outputs, memory, rank): the SVDFs' units are their filters / rank
LAYERS = [("svdf", 32, 10, 1), ("fc", 24, 0, 0), ("svdf", 16, 6, 2), ("fc", 4, 0, 0)]
Ranges = dict[str, tuple[float, float]]


def weights(seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    w, width = {}, FEATURES
    for k, (kind, n, memory, rank) in enumerate(LAYERS):
        limit = np.sqrt(6.0 / (n + width))
        w[f"wf{k}"] = rng.uniform(-limit, limit, (n, width))
        if kind == "svdf":
            w[f"wt{k}"] = rng.normal(0.0, 1.0 / np.sqrt(memory), (n, memory))
            width = n // rank
        else:
            width = n
        w[f"b{k}"] = rng.normal(0.0, 0.1, width)
    return {name: a.astype(np.float32) for name, a in w.items()}


def keyword_model(w: dict[str, np.ndarray], ranges: Ranges | None = None, probe: bool = False) -> bytes:
    """The float model, or (with `ranges`) the int8 one: int8 activations per-tensor asymmetric, SVDF feature
    weights int8 and time weights int16 per-tensor symmetric, its state int16 at the scale of the feature
    projection's range, fully connected weights per channel, int32 biases at their products' scales."""
    mb = ModelBuilder()
    q = ranges is not None

    def act(name: str, width: int) -> int:
        if not q:
            return mb.tensor(name, [1, width], "float32")
        scale, zero = (1.0 / 256.0, -128) if name == "probs" else asymmetric(*ranges[name])
        return mb.tensor(name, [1, width], "int8", scale=scale, zero_point=zero)

    def const(name: str, a: np.ndarray, dtype: str, scale: np.ndarray | float | None) -> int:
        if not q:
            return mb.tensor(name, list(a.shape), "float32", data=a)
        per_channel = np.ndim(scale) == 1
        scales = np.asarray(scale if per_channel else [scale], np.float64)
        data = np.round(a / (scales[:, None] if a.ndim == 2 and per_channel else scales)).astype(np.int64)
        bound = {"int8": 127, "int16": 32767, "int32": 2**31 - 1}[dtype]
        return mb.tensor(name, list(a.shape), dtype, scale=list(scales), zero_point=[0] * len(scales), axis=0,
                         data=np.clip(data, -bound, bound))

    x = act("x", FEATURES)
    h, in_scale, outputs = x, asymmetric(*ranges["x"])[0] if q else 1.0, []
    for k, (kind, n, memory, rank) in enumerate(LAYERS):
        wf, b = w[f"wf{k}"], w[f"b{k}"]
        y = act(f"y{k}", len(b))
        outputs.append(y)
        if kind == "svdf":
            wt = w[f"wt{k}"]
            s_wf, s_wt = np.abs(wf).max() / 127, np.abs(wt).max() / 32767
            s_state = max(abs(v) for v in ranges[f"state{k}"]) / 32767 if q else 1.0
            state = (mb.tensor(f"state{k}", [1, n * memory], "int16", scale=s_state, zero_point=0, variable=True)
                     if q else mb.tensor(f"state{k}", [1, n * memory], "float32", variable=True))
            mb.op("SVDF", [h, const(f"wf{k}", wf, "int8", s_wf), const(f"wt{k}", wt, "int16", s_wt),
                           const(f"b{k}", b, "int32", s_state * s_wt), state], [y],
                  rank=rank, fused_activation_function="RELU")
        else:
            s_w = np.maximum(np.abs(wf).max(axis=1), 1e-8) / 127
            mb.op("FULLY_CONNECTED", [h, const(f"wf{k}", wf, "int8", s_w), const(f"b{k}", b, "int32", in_scale * s_w)],
                  [y], fused_activation_function="RELU" if k < len(LAYERS) - 1 else "NONE")
        h, in_scale = y, asymmetric(*ranges[f"y{k}"])[0] if q else 1.0
    probs = act("probs", LAYERS[-1][1])
    mb.op("SOFTMAX", [h], [probs], beta=1.0)
    return mb.build([x], [*outputs, probs] if probe else [probs])


def calibrate(w: dict[str, np.ndarray], frames: int = 100) -> Ranges:
    """Each activation's range over a calibration stream through the float model, and each SVDF state's:
    the range of its feature projections."""
    graph = load_tflite(keyword_model(w, probe=True), "kws_float")
    state = reset_state(graph)
    ranges: dict[str, tuple[float, float]] = {}
    for x in features(FEATURES, frames, seed=11):
        values = {"x": x, **interpret(graph, {"x": x}, state)}
        for k, (kind, *_) in enumerate(LAYERS):
            if kind == "svdf":
                values[f"state{k}"] = (values[f"y{k - 1}"] if k else x) @ w[f"wf{k}"].T
        for name, v in values.items():
            lo, hi = ranges.get(name, (np.inf, -np.inf))
            ranges[name] = (min(lo, float(v.min())), max(hi, float(v.max())))
    return ranges


@pytest.fixture(scope="module")
def model() -> bytes:
    w = weights()
    return keyword_model(w, calibrate(w))


@pytest.fixture(scope="module")
def stream(model: bytes) -> tuple[list[dict[str, np.ndarray]], list[np.ndarray]]:
    """The int8 feature frames and TFLite Micro's outputs for them, run in order on one interpreter."""
    x = load_tflite(model, "kws").inputs[0]
    frames = [np.clip(np.round(f / x.scale) + x.zero_point, -128, 127).astype(np.int8)
              for f in features(FEATURES, FRAMES, seed=5)]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    outputs = []
    for frame in frames:
        interp.set_input(frame, 0)
        interp.invoke()
        outputs.append(interp.get_output(0).copy())
    return [{"x": f} for f in frames], outputs


def test_the_stream_is_a_real_test(model: bytes, stream: tuple[list, list[np.ndarray]]) -> None:
    graph = load_tflite(model, "kws")
    assert [n.op for n in graph.nodes] == ["svdf", "fully_connected", "svdf", "fully_connected", "softmax"]
    _, expected = stream
    assert len({o.tobytes() for o in expected}) > FRAMES // 2, "the outputs should move with the stream"
    assert len({int(np.argmax(o)) for o in expected}) > 1, "more than one keyword should win along the stream"
    # the state matters: the same frame after different histories gives different outputs
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(stream[0][-1]["x"], 0)
    interp.invoke()
    assert not np.array_equal(interp.get_output(0), expected[-1])


def test_reference_and_host_c_follow_tflm_call_by_call(model: bytes, stream: tuple[list, list[np.ndarray]],
                                                       tmp_path: Path) -> None:
    graph = load_tflite(model, "kws")
    frames, expected = stream
    state = reset_state(graph)
    for k, frame in enumerate(frames):
        np.testing.assert_array_equal(interpret(graph, frame, state)["probs"], expected[k], err_msg=f"frame {k}")
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    outputs, _ = binary.run_stream(frames)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        np.testing.assert_array_equal(got["probs"], want, err_msg=f"generated C, frame {k}")
    # model_reset() between two passes replays the first pass
    frames_x = [f["x"] for f in frames]
    assert run_twice(binary, tmp_path / "project", frames_x) == 2 * b"".join(o.tobytes() for o in expected)


def test_rv32_firmware_runs_the_stream_and_resets(model: bytes, stream: tuple[list, list[np.ndarray]],
                                                  tmp_path: Path) -> None:
    """The whole stream in one run of the firmware (its main asks the platform for each frame), twice, with
    model_reset() before the second pass; one result per frame, each with that frame's counts."""
    frames, expected = stream
    firmware = build_rv32(compile_graph(load_tflite(model, "kws")), tmp_path / "fw", Rv32Config(cc="zig"))
    results = firmware.run_stream(frames + frames, resets=[FRAMES])
    assert len(results) == 2 * FRAMES
    for k, result in enumerate(results):
        np.testing.assert_array_equal(result.outputs["probs"], expected[k % FRAMES], err_msg=f"rv32, frame {k}")
        assert len(result.layers) == 5
        assert sum(layer.instructions for layer in result.layers) < result.instructions
    counts = [r.instructions for r in results]
    assert min(counts) > 0 and max(counts) < 2 * min(counts), counts
    # without the reset the second pass continues the stream, and differs
    carried = firmware.run_stream(frames + frames)
    assert [r.outputs["probs"].tobytes() for r in carried[:FRAMES]] == [o.tobytes() for o in expected]
    assert any(r.outputs["probs"].tobytes() != o.tobytes() for r, o in zip(carried[FRAMES:], expected))
    # one frame alone is the first frame of a stream
    np.testing.assert_array_equal(firmware.run(frames[0]).outputs["probs"], expected[0])
