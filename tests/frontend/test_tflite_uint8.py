"""Legacy uint8 models: imported as int8 on values shifted by -128, their outputs those of TensorFlow Lite's
uint8 reference kernels (tests/frontend/legacy_uint8.py), in mote's reference and in the generated C, with uint8
at the API."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import DType
from mote.ops import OPS
from mote.reference import interpret
from mote.targets.host import build_host
from tests.frontend.legacy_uint8 import (
    RELU6_Q,
    avg_pool_uint8,
    conv_uint8,
    head_outputs,
    head_uint8,
    mobilenet_uint8,
    mul_uint8,
    reference_outputs,
)

REPO = Path(__file__).resolve().parents[2]


def _images(seed: int, count: int, size: int = 16) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (1, size, size, 3)).astype(np.uint8) for _ in range(count)]


def test_imported_as_int8_with_uint8_at_the_boundary() -> None:
    graph = load_tflite(mobilenet_uint8()[0], "m")
    assert [t.dtype for t in graph.inputs] == [DType.UINT8] and [t.dtype for t in graph.outputs] == [DType.UINT8]
    inner = [t for n in graph.nodes[1:-1] for t in [*n.inputs, *n.outputs] if t is not None and t.quant is not None]
    assert {t.dtype for t in inner} <= {DType.INT8, DType.INT32}
    assert [n.op for n in (graph.nodes[0], graph.nodes[-1])] == ["quantize", "quantize"]
    weights = graph.nodes[1].inputs[1]
    assert weights is not None and weights.zero_point == 151 - 128
    assert any("legacy uint8" in note for note in graph.notes)


@pytest.mark.parametrize("seed", range(3))
def test_reference_is_tflite_uint8_kernels(seed: int) -> None:
    """Every layer's output, not only the last: the model cut after each layer in turn."""
    model, constants = mobilenet_uint8(seed)
    graph = load_tflite(model, "m")
    for image in _images(seed, 4):
        want = reference_outputs(constants, image)
        values = {graph.inputs[0]: image}
        for node in graph.nodes:  # the reference interpreter's steps, kept for every layer
            op = OPS[node.op]
            args = [values[t] if t in values else t.data for t in node.inputs if t is not None]
            for t, v in zip(node.outputs, op.reference(node, op.prepare(node), args)):
                values[t] = v
        by_name = {t.name: v for t, v in values.items()}
        for name in ("conv1", "dw2", "pw3", "pool", "logits"):
            np.testing.assert_array_equal((by_name[name].astype(np.int16) + 128).reshape(want[name].shape),
                                          want[name], err_msg=name)
        np.testing.assert_array_equal(interpret(graph, {"input": image})["probs"], want["probs"])


def test_generated_c_is_tflite_uint8_kernels(tmp_path: Path) -> None:
    model, constants = mobilenet_uint8(7)
    graph = load_tflite(model, "m")
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    for image in _images(7, 3):
        got = binary.run({"input": image})[0]["probs"]
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got.reshape(1, 10), reference_outputs(constants, image)["probs"])


def _one_layer(builtin: str, x_shape: list[int], y_shape: list[int], w: np.ndarray | None = None,
               w_zero_point: int = 0, **options: object) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", x_shape, "uint8", scale=RELU6_Q[0], zero_point=37)
    inputs = [x]
    if w is not None:
        inputs.append(mb.tensor("w", list(w.shape), "uint8", scale=0.03, zero_point=w_zero_point, data=w))
        channels = y_shape[-1]
        inputs.append(mb.tensor("b", [channels], "int32", scale=float(np.float32(RELU6_Q[0]) * np.float32(0.03)),
                                zero_point=0, data=np.arange(channels, dtype=np.int32) * 50 - 100))
    scale, zero_point = (0.05, 140) if w is not None else (RELU6_Q[0], 37)
    y = mb.tensor("y", y_shape, "uint8", scale=scale, zero_point=zero_point)
    mb.op(builtin, inputs, [y], **options)
    return mb.build([x], [y])


def test_average_pool_rounds_halves_up_as_uint8_did(tmp_path: Path) -> None:
    """Windows of four: a sum ending in a half rounds up, where the int8 kernel rounds negative ones down."""
    model = _one_layer("AVERAGE_POOL_2D", [1, 8, 8, 5], [1, 4, 4, 5], padding="VALID", stride_h=2, stride_w=2,
                       filter_height=2, filter_width=2)
    graph = load_tflite(model, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p")
    rng = np.random.default_rng(3)
    x = rng.integers(100, 140, (1, 8, 8, 5)).astype(np.uint8)  # around 128: sums of either sign after the shift
    want = avg_pool_uint8(x[0], 2, 2)[None]
    np.testing.assert_array_equal(interpret(graph, {"x": x})["y"], want)
    np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)


@pytest.mark.parametrize("depthwise", [False, True])
def test_padded_convolution_with_weight_zero_point(depthwise: bool, tmp_path: Path) -> None:
    """Border windows skip their out-of-bounds taps: the weights' zero point term follows the in-bounds ones."""
    rng = np.random.default_rng(11)
    w = rng.integers(0, 256, (1, 3, 3, 6) if depthwise else (4, 3, 3, 6)).astype(np.uint8)
    builtin = "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D"
    extra = {"depth_multiplier": 1} if depthwise else {}
    model = _one_layer(builtin, [1, 5, 7, 6], [1, 5, 7, 6 if depthwise else 4], w, 201, padding="SAME",
                       stride_h=1, stride_w=1, fused_activation_function="RELU6", **extra)
    graph = load_tflite(model, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    x = rng.integers(0, 256, (1, 5, 7, 6)).astype(np.uint8)
    bias = np.arange(w.shape[-1] if depthwise else 4, dtype=np.int32) * 50 - 100
    want = conv_uint8(x[0], (RELU6_Q[0], 37), w[0] if depthwise else w, (0.03, 201), bias, (0.05, 140), 1, "SAME",
                      "RELU6", depthwise=depthwise)[None]
    np.testing.assert_array_equal(interpret(graph, {"x": x})["y"], want)
    np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)


def test_an_op_not_checked_for_uint8_is_refused() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 8], "uint8", scale=0.05, zero_point=128)
    y = mb.tensor("y", [1, 8], "uint8", scale=1 / 128, zero_point=128)
    mb.op("TANH", [x], [y])
    with pytest.raises(UnsupportedError, match="legacy uint8 model may hold only"):
        load_tflite(mb.build([x], [y]), "m")


def test_header_keeps_uint8(tmp_path: Path) -> None:
    compiled = compile_graph(load_tflite(mobilenet_uint8()[0], "m"))
    header = compiled.sources["model.h"]
    assert "int model_run(const uint8_t *input0, uint8_t *output0);" in header
    assert '"input", uint8 [1, 16, 16, 3]' in header and '"probs", uint8 [1, 10]' in header
    assert "#define MODEL_INPUT0_ZERO_POINT 128" in header and "#define MODEL_OUTPUT0_ZERO_POINT 0" in header


def _mote(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=600)


def test_run_says_tflite_micro_does_not_run_it(tmp_path: Path) -> None:
    path = tmp_path / "legacy.tflite"
    path.write_bytes(mobilenet_uint8()[0])
    text = _mote("run", str(path), "--target", "host")
    assert text.returncode == 0, text.stderr
    assert "does not run legacy uint8 models" in text.stdout and "mote's reference only" in text.stdout
    report = json.loads(_mote("run", str(path), "--target", "host", "--json").stdout)
    assert report["bit_exact"] is True
    assert report["tflite_micro"]["ran"] is False and "legacy uint8" in report["tflite_micro"]["note"]
    assert any("legacy uint8" in note for note in report["notes"])


def test_head_with_fully_connected_add_and_concatenation(tmp_path: Path) -> None:
    model, constants = head_uint8(5)
    graph = load_tflite(model, "m")
    assert [t.dtype for t in graph.outputs] == [DType.UINT8, DType.FLOAT32]
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    rng = np.random.default_rng(5)
    for _ in range(3):
        inputs = {"x": rng.integers(0, 256, (1, 8, 8, 4)).astype(np.uint8),
                  "side": rng.integers(0, 256, (1, 6)).astype(np.uint8)}
        want = head_outputs(constants, inputs["x"], inputs["side"])
        for got in (interpret(graph, inputs), binary.run(inputs)[0]):
            for name, value in want.items():
                np.testing.assert_array_equal(np.asarray(got[name]).reshape(value.shape), value, err_msg=name)


def test_pad_and_squeeze_pad_with_the_zero_point() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 3, 3, 2], "uint8", scale=0.1, zero_point=201)
    pads = mb.tensor("pads", [4, 2], "int32", data=np.array([[0, 0], [1, 1], [2, 0], [0, 0]]))
    padded = mb.tensor("padded", [1, 5, 5, 2], "uint8", scale=0.1, zero_point=201)
    mb.op("PAD", [x, pads], [padded])
    y = mb.tensor("y", [5, 5, 2], "uint8", scale=0.1, zero_point=201)
    mb.op("SQUEEZE", [padded], [y], squeeze_dims=[0])
    graph = load_tflite(mb.build([x], [y]), "m")
    value = np.random.default_rng(2).integers(0, 256, (1, 3, 3, 2)).astype(np.uint8)
    want = np.pad(value[0], [(1, 1), (2, 0), (0, 0)], constant_values=201)
    np.testing.assert_array_equal(interpret(graph, {"x": value})["y"], want)


def test_legacy_layers_stay_on_the_cpu() -> None:
    from mote.accel.loader import find_accelerator
    from mote.accel.partition import partition

    graph = load_tflite(mobilenet_uint8()[0], "m")
    decisions = {d.node.name: d for d in partition(graph, find_accelerator("qvanilla"))}
    assert not decisions["conv1"].offloaded and "legacy uint8" in decisions["conv1"].why_not()


def test_mul_takes_its_multiplier_in_float(tmp_path: Path) -> None:
    """Every pair of uint8 values, at scales where the float ratio and the double one round to different
    multipliers (and so to different outputs for two products)."""
    aq, bq, outq = (0.04629407078027725, 100), (0.07461854815483093, 140), (0.3687956631183624, 30)
    mb = ModelBuilder()
    a = mb.tensor("a", [256, 1], "uint8", scale=aq[0], zero_point=aq[1])
    b = mb.tensor("b", [1, 256], "uint8", scale=bq[0], zero_point=bq[1])
    y = mb.tensor("y", [256, 256], "uint8", scale=outq[0], zero_point=outq[1])
    mb.op("MUL", [a, b], [y])
    graph = load_tflite(mb.build([a, b], [y]), "m")
    inputs = {"a": np.arange(256, dtype=np.uint8).reshape(256, 1), "b": np.arange(256, dtype=np.uint8).reshape(1, 256)}
    want = mul_uint8(inputs["a"], aq, inputs["b"], bq, outq)
    assert np.count_nonzero(want != mul_uint8(inputs["a"], aq, inputs["b"], bq, outq, in_double=True)) > 0
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], want)
    binary = build_host(compile_graph(graph), tmp_path / "p")
    np.testing.assert_array_equal(binary.run(inputs)[0]["y"].reshape(want.shape), want)


def test_firmware_on_rv32_is_tflite_uint8_kernels(tmp_path: Path) -> None:
    """The rv32 build (scalar kernels, the boundary's byte flips) on a user's uint8 input file."""
    from mote import pipeline
    from mote.targets.rv32 import Rv32, Rv32Config

    model, constants = mobilenet_uint8(3)
    path = tmp_path / "legacy.tflite"
    path.write_bytes(model)
    image = _images(3, 1)[0]
    np.save(tmp_path / "image.npy", image)
    report = pipeline.run(path, target=Rv32(Rv32Config(cc="zig")), input_path=tmp_path / "image.npy",
                          check_tflm=True)
    assert report.bit_exact and report.tflite_micro is not None and not report.tflite_micro.ran
    np.testing.assert_array_equal(report.outputs["probs"].reshape(1, 10), reference_outputs(constants, image)["probs"])
