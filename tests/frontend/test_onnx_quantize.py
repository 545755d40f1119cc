"""`mote quantize`: a float ONNX CNN (the bundled digits model's float form) quantized with onnxruntime's
tools, its accuracy figure reported, then compiled and run on the virtual platform bit-exact."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.onnx import load_onnx_model, parse_input_shapes, quantize_model
from mote.frontend.tflite import load_tflite_file
from mote.ir import Tensor
from mote.pipeline import default_model
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.frontend.onnx_util import model


def _real(t: Tensor) -> np.ndarray:
    assert t.data is not None and t.quant is not None
    scale = np.asarray(t.quant.scale, np.float64)
    if t.quant.axis is not None and scale.size > 1:
        scale = scale.reshape([-1 if i == t.quant.axis else 1 for i in range(t.data.ndim)])
    return ((t.data.astype(np.float64) - np.asarray(t.quant.zero_point).reshape(scale.shape)) * scale)


def digits_float_onnx() -> onnx.ModelProto:
    """The digits CNN with its int8 weights dequantized, as an NCHW float ONNX model."""
    graph = load_tflite_file(default_model())
    convs = [n for n in graph.nodes if n.op == "conv2d"]
    fc = next(n for n in graph.nodes if n.op == "fully_connected")
    inits: dict[str, np.ndarray] = {}
    nodes = []
    x = "x"
    for i, n in enumerate(convs):
        w, b, inp = n.inputs[1], n.inputs[2], n.inputs[0]
        assert w is not None and b is not None and inp is not None and w.quant is not None
        inits[f"w{i}"] = _real(w).transpose(0, 3, 1, 2).astype(np.float32)  # OHWI -> OIHW
        bias_scale = np.float64(inp.scale) * np.asarray(w.quant.scale, np.float64)
        inits[f"b{i}"] = (b.data * bias_scale).astype(np.float32)
        stride = list(n.attrs["stride"])
        nodes += [helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], strides=stride, auto_pad="SAME_UPPER"),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        x = f"r{i}"
    w, b, inp = fc.inputs[1], fc.inputs[2], fc.inputs[0]
    assert w is not None and b is not None and inp is not None
    inits["wf"] = _real(w).astype(np.float32)
    inits["bf"] = (b.data * np.float64(inp.scale) * np.float64(w.scale)).astype(np.float32)
    inits["shape"] = np.array([1, -1], np.int64)
    nodes += [helper.make_node("Transpose", [x], ["t"], perm=[0, 2, 3, 1]),  # TFLite flattens NHWC
              helper.make_node("Reshape", ["t", "shape"], ["flat"]),
              helper.make_node("Gemm", ["flat", "wf", "bf"], ["logits"], transB=1),
              helper.make_node("Softmax", ["logits"], ["probs"])]
    return model(nodes, {"x": (1, 1, 8, 8)}, ["probs"], inits)


def digit_like(rng: np.random.Generator, n: int) -> np.ndarray:
    """Blobby 8x8 images in [0, 1] (calibration needs plausible ranges, not real digits)."""
    img = rng.random((n, 1, 8, 8)) * (rng.random((n, 1, 8, 8)) > 0.5)
    return img.astype(np.float32)


@pytest.fixture(scope="module")
def float_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("digits") / "digits_float.onnx"
    onnx.save(digits_float_onnx(), path)
    return path


@pytest.mark.parametrize("method", ["MinMax", "Percentile"])
def test_quantize_reports_accuracy(float_model: Path, method: str, tmp_path: Path) -> None:
    calib = tmp_path / "calib.npz"
    np.savez(calib, x=digit_like(np.random.default_rng(0), 24))
    report = quantize_model(float_model, calib, tmp_path / "q.onnx", method)
    assert report["method"] == method and report["calibration_samples"] == 24
    assert 0 <= report["mean_abs_diff"] <= report["max_abs_diff"] < 0.2
    assert report["top1_agreement"] >= 0.9
    assert (tmp_path / "q.onnx").exists()


def test_quantized_digits_run_on_the_virtual_platform(float_model: Path, tmp_path: Path) -> None:
    """Calibration from a directory of .npy files; the QDQ model compiled for rv32, bit-exact with the
    reference, within the ±1 LSB criterion of onnxruntime."""
    calib = tmp_path / "calib"
    calib.mkdir()
    for i, img in enumerate(digit_like(np.random.default_rng(1), 16)):
        np.save(calib / f"{i:03d}.npy", img[None])
    onnx_model = load_onnx_model(float_model, calib, "Entropy")
    report = onnx_model.quantization
    assert report["calibration_samples"] == 16 and "max_abs_diff" in report
    firmware = build_rv32(compile_graph(onnx_model.graph), tmp_path / "rv32", Rv32Config(cc="zig"))
    x = tmp_path / "x.npy"
    np.save(x, digit_like(np.random.default_rng(2), 1))  # NCHW, as the ONNX model takes it
    inputs = onnx_model.inputs_from_file(x)
    expected = interpret(onnx_model.graph, inputs)
    result = firmware.run(inputs)
    for name, want in expected.items():
        assert np.array_equal(result.outputs[name], want)
    assert result.instructions > 0
    extra = onnx_model.report(inputs, result.outputs)
    assert extra["onnxruntime_max_lsb_diff"] <= 2 and extra["onnxruntime_match_rate"] > 0.5, extra
    assert extra["quantization"]["method"] == "Entropy"


def test_float_model_without_calibration_and_input_shapes(float_model: Path) -> None:
    with pytest.raises(MoteError, match="--calib"):
        load_onnx_model(float_model)
    assert parse_input_shapes(["x=1,1,8,8"]) == {"x": (1, 1, 8, 8)}
    with pytest.raises(MoteError, match="NAME=D0"):
        parse_input_shapes(["x=1,a"])


def test_calibration_errors(float_model: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros((3, 5), np.float32))
    with pytest.raises(MoteError, match="shape"):
        quantize_model(float_model, bad, tmp_path / "q.onnx")
    with pytest.raises(MoteError, match="method"):
        quantize_model(float_model, bad, tmp_path / "q.onnx", "Guess")


def test_integer_inputs_calibrate_as_their_declared_type(tmp_path: Path) -> None:
    """An int64 index input (a language model's token) reaches onnxruntime as int64, not as float32."""
    from onnx import TensorProto, numpy_helper

    table = np.arange(32, dtype=np.float32).reshape(8, 4) / 8
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "token"], ["rows"], axis=0),
         helper.make_node("MatMul", ["rows", "w"], ["y3"]),
         helper.make_node("Reshape", ["y3", "shape"], ["y"])], "gather_matmul",
        [helper.make_tensor_value_info("token", TensorProto.INT64, [1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [numpy_helper.from_array(table, "table"), numpy_helper.from_array(np.ones((4, 2), np.float32), "w"),
         numpy_helper.from_array(np.array([1, 2], np.int64), "shape")])
    src = tmp_path / "gather.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), src)
    np.savez(tmp_path / "calib.npz", token=np.arange(8, dtype=np.int32).reshape(8, 1, 1))
    report = quantize_model(src, tmp_path / "calib.npz", tmp_path / "q.onnx")
    assert report["calibration_samples"] == 8
    assert report["top1_agreement"] == 1.0
