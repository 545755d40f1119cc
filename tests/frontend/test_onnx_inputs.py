"""`--input` arrays for ONNX models must match the model's inputs exactly; calibration data for `mote quantize`
that cannot be used is one line; onnxruntime's failures are one line and nothing of it reaches stderr."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.errors import MoteError
from mote.frontend.onnx import OnnxModel, compare, convert, load_onnx_model
from mote.reference import interpret
from tests.frontend.onnx_util import feeds_for, model
from tests.frontend.test_onnx_validation import node, qdq_conv

# -- --input for ONNX models ------------------------------------------------------------------------------------------

@pytest.fixture
def onnx_model(tmp_path: Path) -> OnnxModel:
    path = tmp_path / "m.onnx"
    onnx.save(qdq_conv(), str(path))
    return load_onnx_model(path)


@pytest.mark.parametrize("array, words", [
    (np.zeros((1, 3, 8, 8)), "got float64 [1, 3, 8, 8], the model wants float32 [1, 3, 8, 8]"),
    (np.zeros((1, 8, 8, 3), np.float32), "got float32 [1, 8, 8, 3], the model wants float32 [1, 3, 8, 8]"),
    (np.zeros((3, 8, 8), np.float32), "got float32 [3, 8, 8]"),
    (np.array(["a", "b"]), "got <U1 [2]"),
])
def test_input_dtype_and_shape_exactly(onnx_model: OnnxModel, tmp_path: Path, array: np.ndarray, words: str) -> None:
    path = tmp_path / "x.npy"
    np.save(path, array)
    with pytest.raises(MoteError) as info:
        onnx_model.inputs_from_file(path)
    assert "input 'x'" in str(info.value) and words in str(info.value) and "\n" not in str(info.value)


def test_input_files_that_cannot_be_used(onnx_model: OnnxModel, tmp_path: Path) -> None:
    cases = {"empty.npz": lambda p: np.savez(p), "extra.npz": lambda p: np.savez(p, x=np.zeros((1, 3, 8, 8),
                                                                                                np.float32), y=1),
             "named.npz": lambda p: np.savez(p, image=np.zeros((1, 3, 8, 8), np.float32)),
             "object.npy": lambda p: np.save(p, np.array([{}, 1], dtype=object), allow_pickle=True),
             "garbage.npy": lambda p: p.write_bytes(b"\x93NUMPY garbage")}
    words = {"empty.npz": "holds no arrays", "extra.npz": "'y' is not an input", "named.npz": "no array named 'x'",
             "object.npy": "cannot read inputs", "garbage.npy": "cannot read inputs"}
    for name, write in cases.items():
        path = tmp_path / name
        write(path)
        with pytest.raises(MoteError) as info:
            onnx_model.inputs_from_file(path)
        assert words[name] in str(info.value) and "\n" not in str(info.value), name
    os.mkfifo(tmp_path / "fifo.npy")
    with pytest.raises(MoteError, match="not a regular file"):
        onnx_model.inputs_from_file(tmp_path / "fifo.npy")


def test_matching_input_is_taken(onnx_model: OnnxModel, tmp_path: Path) -> None:
    path = tmp_path / "x.npz"
    x = np.random.default_rng(1).normal(size=(1, 3, 8, 8)).astype(np.float32)
    np.savez(path, x=x)
    inputs = onnx_model.inputs_from_file(path)
    assert np.array_equal(inputs["x"], x.transpose(0, 2, 3, 1))  # NCHW taken channels-last


# -- onnxruntime: failures are one line, nothing on stderr ---------------------------------------------------------

def test_onnxruntime_failure_is_one_line() -> None:
    m = qdq_conv()
    conversion = convert(m, "net")
    inputs = feeds_for(conversion, np.random.default_rng(0))
    outputs = interpret(conversion.graph, inputs)
    broken = onnx.ModelProto()
    broken.CopyFrom(m)
    node(broken, "conv").op_type = "NoSuchOp"
    with pytest.raises(MoteError) as info:
        compare(broken, conversion, inputs, outputs)
    assert "onnxruntime cannot run the model" in str(info.value) and "\n" not in str(info.value)


def test_nothing_reaches_stderr(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(qdq_conv(), str(path))
    capfd.readouterr()
    onnx_model = load_onnx_model(path)
    inputs = feeds_for(onnx_model.conversion, np.random.default_rng(0))
    report = onnx_model.report(inputs, interpret(onnx_model.graph, inputs))
    assert report["onnxruntime_match_rate"] >= 0.99
    assert capfd.readouterr().err == ""


# -- calibration data for `mote quantize` --------------------------------------------------------------------------

def test_calibration_files_that_cannot_be_used(tmp_path: Path) -> None:
    from mote.frontend.onnx.quantize import calibration_samples

    float_model = model([helper.make_node("Relu", ["x"], ["y"])], {"x": (1, 4)}, ["y"])
    cases = {"strings.npy": (lambda p: np.save(p, np.array(["a", "b", "c", "d"])), "holds <U1 values"),
             "empty.npz": (lambda p: np.savez(p), "holds no arrays"),
             "garbage.npz": (lambda p: p.write_bytes(b"PK\x03\x04 damaged"), "cannot read calibration data")}
    for name, (write, words) in cases.items():
        path = tmp_path / name
        write(path)
        with pytest.raises(MoteError) as info:
            calibration_samples(float_model, path, {})
        assert words in str(info.value) and "\n" not in str(info.value), name
    os.mkfifo(tmp_path / "fifo.npz")
    with pytest.raises(MoteError, match="not a regular file"):
        calibration_samples(float_model, tmp_path / "fifo.npz", {})
