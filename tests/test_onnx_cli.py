"""ONNX through the command line: `mote quantize`, then `mote run` on the quantized model, and the
one-step `mote run model.onnx --calib` on the virtual platform."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def float_cnn(path: Path, batch: int | str = 1) -> None:
    """conv 3x3 + relu -> flatten -> gemm, saved with the newest IR version this onnx knows; `batch` may be
    a name (a dynamic batch dimension, as exporters write it)."""
    rng = np.random.default_rng(0)
    init = [numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "W"),
            numpy_helper.from_array(rng.normal(0, 0.1, (8,)).astype(np.float32), "B"),
            numpy_helper.from_array(rng.normal(0, 0.1, (10, 512)).astype(np.float32), "W2")]
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]), helper.make_node("Flatten", ["r"], ["f"]),
             helper.make_node("Gemm", ["f", "W2"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])], init)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def mote(*args: str | Path) -> tuple[int, dict, str]:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)
    return proc.returncode, json.loads(proc.stdout) if proc.returncode == 0 else {}, proc.stderr


def test_quantize_then_run(tmp_path: Path) -> None:
    float_cnn(tmp_path / "f.onnx")
    np.savez(tmp_path / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (16, 3, 8, 8)).astype(np.float32))
    code, report, err = mote("quantize", tmp_path / "f.onnx", "--calib", tmp_path / "cal.npz",
                             "-o", tmp_path / "q.onnx", "--json")
    assert code == 0, err
    assert report["calibration_samples"] == 16 and 0 < report["mean_abs_diff"] <= report["max_abs_diff"]
    code, run, err = mote("run", tmp_path / "q.onnx", "--json")
    assert code == 0, err
    assert run["bit_exact"] and run["onnxruntime_match_rate"] >= 0.99 and run["onnxruntime_max_lsb_diff"] <= 1


def test_a_dynamic_batch_runs_as_one_and_says_so(tmp_path: Path) -> None:
    float_cnn(tmp_path / "f.onnx", batch="N")
    np.savez(tmp_path / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (8, 3, 8, 8)).astype(np.float32))
    code, run, err = mote("run", tmp_path / "f.onnx", "--calib", tmp_path / "cal.npz", "--json")
    assert code == 0, err
    assert run["bit_exact"] and run["notes"] == ["input 'x': the dynamic batch dimension 'N' is taken as 1 "
                                                 "(--input-shape sets another)"]
    text = subprocess.run([sys.executable, "-m", "mote.cli", "run", str(tmp_path / "f.onnx"), "--calib",
                           str(tmp_path / "cal.npz")], capture_output=True, text=True).stdout
    assert "note: input 'x': the dynamic batch dimension 'N' is taken as 1" in text


def test_one_step_on_the_virtual_platform(tmp_path: Path) -> None:
    float_cnn(tmp_path / "f.onnx")
    np.savez(tmp_path / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (8, 3, 8, 8)).astype(np.float32))
    code, run, err = mote("run", tmp_path / "f.onnx", "--calib", tmp_path / "cal.npz", "--target", "rv32",
                          "--cc", "zig", "--json")
    assert code == 0, err
    assert run["bit_exact"] and run["instructions"] > 0 and run["onnxruntime_match_rate"] >= 0.99
    assert run["quantization"]["calibration_samples"] == 8


def test_float_model_without_calibration(tmp_path: Path) -> None:
    float_cnn(tmp_path / "f.onnx")
    code, _, err = mote("run", tmp_path / "f.onnx")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "mote quantize" in err


def test_quantize_weight_bits(tmp_path: Path) -> None:
    """--weight-bits 4: int4 weights, the accuracy change against the 8-bit weights in the JSON and in the text;
    a width mote does not quantize to is one line and exit status 2."""
    float_cnn(tmp_path / "f.onnx")
    np.savez(tmp_path / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (16, 3, 8, 8)).astype(np.float32))
    args = ("quantize", tmp_path / "f.onnx", "--calib", tmp_path / "cal.npz", "-o", tmp_path / "q.onnx")
    code, report, err = mote(*args, "--weight-bits", "4", "--json")
    assert code == 0, err
    wide = report["int8_weights"]
    assert report["weight_bits"] == 4 and report["weight_bytes"] * 2 == wide["weight_bytes"] == 8 * 27 + 10 * 512
    assert wide["mean_abs_diff"] < report["mean_abs_diff"] and "top1_agreement" in report
    assert {i.data_type for i in onnx.load(str(tmp_path / "q.onnx")).graph.initializer} >= {TensorProto.INT4}
    text = subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args), "--weight-bits", "2"],
                          capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert "against the float model: 2-bit weights max abs diff" in text.stdout and "; 8-bit weights" in text.stdout
    bad = subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args), "--weight-bits", "3"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["mote: error: --weight-bits 3: mote quantizes weights to 8, 4 or 2 "
                                               "bits; give one of those"]
