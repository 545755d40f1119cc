"""`mote run --calls N`: a stream of calls in one build, on the host and on rv32, every call compared with
mote's reference (carrying the model's state) and with TFLite Micro (one interpreter, call by call); the
frames of an --input file along a leading call axis; outputs saved with that axis; one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY
from test_cli import assert_one_line_error, mote
from test_streaming_keyword import FEATURES, calibrate, keyword_model, weights

from mote.cli_report import stream_verdicts
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.stream import run_stream
from mote.tflm_match import TflmMatch

CALLS = 20


@pytest.fixture(scope="module")
def kws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-SVDF streaming keyword spotter of test_streaming_keyword, as a file."""
    w = weights()
    path = tmp_path_factory.mktemp("kws") / "kws_svdf.tflite"
    path.write_bytes(keyword_model(w, calibrate(w)))
    return path


def _stream_json(*args: str | Path) -> dict:
    proc = mote("run", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("target", ["host", "rv32"])
def test_a_streaming_keyword_model_is_identical_with_tflm_on_every_call(kws: Path, target: str) -> None:
    report = _stream_json(kws, "--calls", str(CALLS), "--target", target)
    assert report["calls"] == CALLS and report["state_bytes"] > 0
    assert report["bit_exact"] is True and report["first_mismatch_call"] is None
    tflm = report["tflite_micro"]
    assert tflm["ran"] and tflm["identical_calls"] == CALLS and tflm["first_difference_call"] is None
    calls = report["per_call"]
    assert [c["call"] for c in calls] == list(range(CALLS))
    assert all(c["bit_exact"] and c["tflite_micro"]["mismatches"] == 0 for c in calls)
    if target == "rv32":
        counts = [c["instructions"] for c in calls]
        figures = report["call_figures"]["instructions"]
        assert figures["first"] == counts[0] == report["instructions"] > 0
        assert figures["min"] == min(counts) and figures["max"] == max(counts)
        assert figures["median"] == float(np.median(counts))
        assert report["call_figures"]["cycles"]["first"] == calls[0]["cycles"] == report["cycles"]
    else:
        assert report["call_figures"] == {} and report["host_us_per_inference"] > 0


def test_the_text_report_says_identical_on_every_call(kws: Path) -> None:
    proc = mote("run", kws, "--calls", "5", "--target", "rv32")
    assert proc.returncode == 0, proc.stderr
    assert "5 calls: outputs vs TFLite Micro identical on every call" in proc.stdout
    assert "5 calls: outputs vs reference interpreter bit-exact on every call" in proc.stdout
    assert "instructions per call: first " in proc.stdout and ", median " in proc.stdout


def test_input_frames_and_saved_outputs_have_a_leading_call_axis(kws: Path, tmp_path: Path) -> None:
    """The frames of an .npy, [N, 1, 40] or [N, 40], give the same outputs as the random frames they hold;
    the saved outputs are [N, 1, 4]."""
    graph = load_tflite(kws.read_bytes(), "kws")
    frames = np.stack([random_inputs(graph, 7 + k)["x"] for k in range(6)])
    np.save(tmp_path / "frames.npy", frames)
    np.save(tmp_path / "flat.npy", frames.reshape(6, FEATURES))
    _stream_json(kws, "--calls", "6", "--input", tmp_path / "frames.npy", "--save-outputs", tmp_path / "a.npz")
    _stream_json(kws, "--calls", "6", "--input", tmp_path / "flat.npy", "--save-outputs", tmp_path / "b.npz")
    _stream_json(kws, "--calls", "6", "--seed", "7", "--save-outputs", tmp_path / "c.npz")
    saved = [np.load(tmp_path / f"{name}.npz") for name in "abc"]
    assert saved[0].files == ["probs"] and saved[0]["probs"].shape == (6, 1, 4)
    for other in saved[1:]:
        np.testing.assert_array_equal(other["probs"], saved[0]["probs"])
    # the state matters: a call's outputs depend on the calls before it
    alone = _stream_json(kws, "--calls", "1", "--seed", "12", "--save-outputs", tmp_path / "d.npz")
    assert alone["calls"] == 1
    assert not np.array_equal(np.load(tmp_path / "d.npz")["probs"][0], saved[0]["probs"][5])


def test_a_stateless_model_runs_independent_calls(tmp_path: Path) -> None:
    report = _stream_json(MLPERF_TINY / "ad01_int8.tflite", "--calls", "3", "--save-outputs", tmp_path / "o.npz")
    assert report["calls"] == 3 and report["state_bytes"] == 0 and report["tflite_micro"]["identical_calls"] == 3
    outputs = np.load(tmp_path / "o.npz")
    assert outputs[outputs.files[0]].shape == (3, 1, 640)
    single = tmp_path / "single.npz"
    assert mote("run", MLPERF_TINY / "ad01_int8.tflite", "--seed", "2", "--save-outputs", single).returncode == 0
    np.testing.assert_array_equal(np.load(single)[outputs.files[0]], outputs[outputs.files[0]][2])


@pytest.mark.parametrize("calls", ["0", "10001", "-3", "many"])
def test_calls_out_of_range_is_one_line(kws: Path, calls: str) -> None:
    assert_one_line_error(mote("run", kws, f"--calls={calls}"), "--calls")


@pytest.mark.parametrize("shape", [(5, 1, FEATURES), (7, FEATURES, 1), (1, FEATURES), (FEATURES,), ()])
def test_input_frames_of_the_wrong_leading_shape_are_one_line(kws: Path, tmp_path: Path,
                                                              shape: tuple[int, ...]) -> None:
    np.save(tmp_path / "x.npy", np.zeros(shape, np.int8))
    out = tmp_path / "out.npz"
    proc = mote("run", kws, "--calls", "7", "--input", tmp_path / "x.npy", "--save-outputs", out)
    assert_one_line_error(proc, "--calls 7 wants int8 [7, 1, 40] or [7, 40]", str(list(shape)))
    assert not out.exists()


def test_input_frames_of_another_dtype_are_one_line(kws: Path, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.zeros((3, 1, FEATURES), np.float32))
    assert_one_line_error(mote("run", kws, "--calls", "3", "--input", tmp_path / "x.npy"), "float32", "astype")


def test_an_onnx_model_is_refused_in_one_line(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read")
    assert_one_line_error(mote("run", model, "--calls", "2"), "--calls runs .tflite models")


def test_the_api_reports_the_first_call_that_differs(kws: Path) -> None:
    """A stream whose third call TFLite Micro computes otherwise is reported from that call on."""
    report = run_stream(kws, calls=4, check_tflm=True)
    calls = report.calls
    calls[2] = type(calls[2])(calls[2].outputs, 0, calls[2].figures, TflmMatch(True, 3))
    data = report.to_json()
    assert data["tflite_micro"]["identical_calls"] == 3 and data["tflite_micro"]["first_difference_call"] == 2
    assert data["per_call"][2]["tflite_micro"]["mismatches"] == 3
    lines = stream_verdicts(report)
    assert lines[1].startswith("4 calls: outputs vs TFLite Micro") and "first differ on call 2" in lines[1]
    assert "3 values differ" in lines[1] and "1 of 4 calls differ" in lines[1]


def test_the_api_reports_the_first_call_that_differs_from_the_reference(kws: Path) -> None:
    report = run_stream(kws, calls=3)
    calls = report.calls
    calls[1] = type(calls[1])(calls[1].outputs, 5, calls[1].figures, None)
    report.mismatches = 5
    data = report.to_json()
    assert data["bit_exact"] is False and data["first_mismatch_call"] == 1 and "tflite_micro" not in data
    assert [c["bit_exact"] for c in data["per_call"]] == [True, False, True]
    lines = stream_verdicts(report)
    assert len(lines) == 1 and "differ first on call 1" in lines[0] and "(5 values there; 1 of 3 calls" in lines[0]


@pytest.mark.parametrize("calls", [[], ["--calls", "3"]], ids=["one call", "a stream"])
def test_a_model_with_state_on_several_cores_is_one_line(kws: Path, calls: list[str]) -> None:
    assert_one_line_error(mote("run", kws, "--target", "rv32", "--cores", "2", *calls), "model with state",
                          "--cores 1")
