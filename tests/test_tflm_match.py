"""mote run's comparison with TFLite Micro's interpreter (mote.tflm_match)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mote.frontend.tflite import load_tflite_file
from mote.inputs import random_inputs
from mote.pipeline import default_model, run
from mote.reference import interpret
from mote.tflm_match import TflmMatch, tflm_match, ulp_distance, ulp_distance_at_scale


def test_ulp_distance_counts_floats_between() -> None:
    one = np.float32(1.0)
    next_up = np.nextafter(one, np.float32(2), dtype=np.float32)
    a = np.array([one, next_up, 0.0, -0.0, -1.0, np.nextafter(np.float32(0), np.float32(1))], np.float32)
    b = np.array([one, one, -0.0, 0.0, np.nextafter(np.float32(-1), np.float32(0)), -a[5]], np.float32)
    assert ulp_distance(a, b).tolist() == [0, 1, 0, 0, 1, 2]
    assert ulp_distance(np.array([np.nan], np.float32), np.array([1.0], np.float32))[0] >= 1 << 32


def test_run_reports_the_match_with_tflite_micro() -> None:
    report = run(default_model(), check_tflm=True)
    assert report.tflite_micro is not None and report.tflite_micro.identical
    assert report.to_json()["tflite_micro"] == {"ran": True, "agrees": True, "mismatches": 0, "max_ulp": 0,
                                                "max_ulp_at_scale": 0, "ulp_bound": 0}
    assert "tflite_micro" not in run(default_model()).to_json()  # only when asked


def test_a_changed_output_is_counted(tmp_path: Path) -> None:
    graph = load_tflite_file(default_model())
    inputs = random_inputs(graph, 3)
    outputs = interpret(graph, inputs)
    name = graph.outputs[0].name
    outputs[name] = outputs[name].copy()
    outputs[name].flat[0] = np.nextafter(outputs[name].flat[0], np.float32(2), dtype=np.float32)
    match = tflm_match(default_model(), graph, inputs, outputs)
    assert (match.ran, match.mismatches, match.max_ulp, match.agrees) == (True, 1, 1, False)
    assert match.describe() == "1 value differs, at most 1 ULP apart"


def test_differences_count_at_the_outputs_scale_too() -> None:
    """A difference that cancellation made many ULP of a small value is within the bound at the scale of
    its tensor's largest value."""
    want = np.array([1.0, 1e-3, 0.5], np.float32)
    got = want.copy()
    got[1] += np.float32(2 * np.spacing(np.float32(1.0)))  # 2 ULP at 1, thousands at 1e-3
    assert int(ulp_distance(got, want).max()) > 1000
    assert ulp_distance_at_scale(got, want) == 2
    assert TflmMatch(True, 1, 1024, bound=2, max_ulp_at_scale=2).agrees
    assert not TflmMatch(True, 1, 1024, bound=1, max_ulp_at_scale=2).agrees
    assert TflmMatch(True, 1, 1024, bound=2, max_ulp_at_scale=2).describe() == (
        "1 value differs, at most 1024 ULP apart, 2 at the outputs' scale "
        "(within the 2 ULP bound of mote's own transcendental functions)")


def test_a_model_tflite_micro_refuses_is_said_so(tmp_path: Path) -> None:
    graph = load_tflite_file(default_model())
    broken = tmp_path / "broken.tflite"
    broken.write_bytes(default_model().read_bytes()[:64])
    inputs = random_inputs(graph, 0)
    match = tflm_match(broken, graph, inputs, interpret(graph, inputs))
    assert not match.ran and not match.identical
    assert match.describe().startswith("not run by TFLite Micro (it refused the model")
