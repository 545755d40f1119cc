"""`mote run/profile --trace OUT.json`: the run's timeline as a Chrome/Perfetto trace (Trace Event Format, JSON
object form). A small checker holds every event to the format; the spans are checked against the run's JSON:
layers in order summing with the code between them to the run's cycles, a timed accelerator's jobs with its
cycles inside their layers, a DMA's jobs with their bytes, one track per core of a cluster."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, mote

MODELS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny"


def check_trace(trace: dict) -> tuple[dict[int, str], list[dict]]:
    """The Trace Event Format's rules the trace must meet; its thread names by tid and its complete events."""
    assert isinstance(trace, dict) and isinstance(trace["traceEvents"], list)
    assert trace.get("displayTimeUnit", "ms") in ("ms", "ns")
    threads: dict[int, str] = {}
    spans = []
    for e in trace["traceEvents"]:
        assert isinstance(e["name"], str) and e["name"], e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
        assert e["ph"] in ("X", "M"), e
        assert isinstance(e.get("args", {}), dict)
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name", "thread_sort_index"), e
            key = "sort_index" if e["name"] == "thread_sort_index" else "name"
            assert key in e["args"], e
            if e["name"] == "thread_name":
                threads[e["tid"]] = e["args"]["name"]
        else:
            assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)), e
            assert e["ts"] >= 0 and e["dur"] >= 0, e
            spans.append(e)
    assert {e["tid"] for e in spans} <= threads.keys()  # every track is named
    return threads, spans


def _traced(tmp_path: Path, *args: str | Path) -> tuple[dict, dict[str, list[dict]], dict]:
    out = tmp_path / "trace.json"
    proc = mote(*args, "--target", "rv32", "--json", "--trace", out)
    assert proc.returncode == 0, proc.stderr
    threads, spans = check_trace(json.loads(out.read_text()))
    by_track: dict[str, list[dict]] = {}
    for e in spans:
        by_track.setdefault(threads[e["tid"]], []).append(e)
    return json.loads(proc.stdout), by_track, json.loads(out.read_text())


def _disjoint_in_order(spans: list[dict]) -> None:
    cycles = [(e["args"]["start_cycle"], e["args"]["cycles"]) for e in spans]
    for (s0, c0), (s1, _) in zip(cycles, cycles[1:]):
        assert s0 + c0 <= s1


def _check_layers(data: dict, cpu: list[dict], mhz: float) -> dict[int, dict]:
    run, layers = cpu[0], cpu[1:]
    assert run["name"] == "model_run" and run["args"]["start_cycle"] == 0
    assert run["args"]["cycles"] == (data["total_cycles"] if data.get("accel_cycles") else data["cycles"])
    ran = [layer for layer in data["layers"] if "cycles" in layer]
    assert [e["args"]["layer"] for e in layers] == [layer["index"] for layer in ran]
    _disjoint_in_order(layers)
    assert layers[-1]["args"]["start_cycle"] + layers[-1]["args"]["cycles"] <= run["args"]["cycles"]
    inside = sum(e["args"]["cycles"] for e in layers)
    assert inside + run["args"]["outside_layers_cycles"] == run["args"]["cycles"]
    for e, layer in zip(layers, ran):
        # a layer's span is its CPU cycles and its accelerator's (timed), between its two marks
        assert e["args"]["cycles"] == layer["cycles"] + layer["accel_cycles"]
        assert e["args"]["instructions"] == layer["instructions"] and e["args"]["op"] == layer["op"]
        assert e["name"].startswith(layer["name"])
        assert abs(e["ts"] - e["args"]["start_cycle"] / mhz) < 1e-5 and abs(e["dur"] - e["args"]["cycles"] / mhz) < 1e-5
    return {e["args"]["layer"]: e for e in layers}


def test_timed_accelerator(tmp_path: Path) -> None:
    data, tracks, _ = _traced(tmp_path, "profile", "--accel", "dla:timed=1", "--clock-mhz", "50")
    assert set(tracks) == {"cpu", "accelerator dla"}
    layers = _check_layers(data, tracks["cpu"], 50.0)
    jobs = tracks["accelerator dla"]
    assert len(jobs) == data["accel_jobs"] and sum(e["args"]["cycles"] for e in jobs) == data["accel_cycles"] > 0
    _disjoint_in_order(jobs)
    _check_jobs(jobs, layers)


def _check_jobs(jobs: list[dict], layers: dict[int, dict]) -> None:
    """Each job at the exact cycle of its start store (the virtual platform counted it), inside the layer that
    started it, after the CPU wrote its registers."""
    for job in jobs:
        assert job["args"]["start"] == "exact", job
        layer = layers[job["args"]["layer"]]["args"]
        assert layer["start_cycle"] < job["args"]["start_cycle"]
        assert job["args"]["start_cycle"] + job["args"]["cycles"] <= layer["start_cycle"] + layer["cycles"]
    for before, after in zip(jobs, jobs[1:]):
        # the driver writes the next job's registers (a store each) between two jobs
        assert before["args"]["start_cycle"] + before["args"]["cycles"] < after["args"]["start_cycle"]


def test_rtl_accelerator(tmp_path: Path) -> None:
    data, tracks, _ = _traced(tmp_path, "run", "--accel", "qvanilla-rtl")
    jobs = tracks["accelerator qvanilla-rtl"]
    assert sum(e["args"]["cycles"] for e in jobs) == data["accel_rtl"]["rtl_cycles"] == data["accel_cycles"] > 0
    _check_jobs(jobs, _check_layers(data, tracks["cpu"], 100.0))


def test_dma_transfers(tmp_path: Path) -> None:
    data, tracks, _ = _traced(tmp_path, "run", MODELS / "ad01_int8.tflite", "--platform", "cluster8", "--cores", "1")
    _check_layers(data, tracks["cpu"], 100.0)
    dma = [e for name, spans in tracks.items() if name.startswith("DMA channel") for e in spans]
    assert len(dma) == data["dma"]["jobs"] > 0
    assert sum(e["args"]["bytes"] for e in dma) == data["dma"]["bytes"]
    assert sum(e["args"]["cycles"] for e in dma) == data["dma"]["busy_cycles"]
    for name, spans in tracks.items():
        if name.startswith("DMA channel"):
            _disjoint_in_order(spans)  # a channel holds one job at a time


def test_cluster_cores(tmp_path: Path) -> None:
    data, tracks, trace = _traced(tmp_path, "run", MODELS / "ad01_int8.tflite", "--platform", "cluster8",
                                  "--cores", "4")
    assert {name for name in tracks if name.startswith("core")} == {f"core {k}" for k in range(4)}
    _check_layers(data, tracks["cpu"], 100.0)
    total = trace["otherData"]["cycles"]
    for k in range(4):
        spans = sorted(tracks[f"core {k}"], key=lambda e: e["args"]["start_cycle"])
        _disjoint_in_order(spans)
        assert all(0 <= e["args"]["start_cycle"] and e["args"]["start_cycle"] + e["args"]["cycles"] <= total
                   for e in spans)
        busy = sum(e["args"]["cycles"] for e in spans if e["name"] not in ("barrier", "barrier wait"))
        # within model_run a core is busy at most as long as the run figures say (core 0 also runs serial code)
        assert 0 < busy <= data["cores"][k]["cycles"]
    assert any(e["name"] == "barrier wait" for k in range(1, 4) for e in tracks[f"core {k}"])
    # the cluster's L1 tiles: core 0's DMA jobs on the cluster's clock
    dma = [e for name, spans in tracks.items() if name.startswith("DMA channel") for e in spans]
    assert len(dma) == data["dma"]["jobs"] > 0 and sum(e["args"]["bytes"] for e in dma) == data["dma"]["bytes"]
    assert sum(e["args"]["cycles"] for e in dma) == data["dma"]["busy_cycles"]
    assert all(0 <= e["args"]["start_cycle"] and e["args"]["start_cycle"] + e["args"]["cycles"] <= total for e in dma)


def test_trace_output_refused(tmp_path: Path) -> None:
    assert_one_line_error(mote("run", "--target", "rv32", "--trace", tmp_path), "--trace")
    assert_one_line_error(mote("run", "--trace", tmp_path / "t.json"), "--trace", "--target rv32")
    assert_one_line_error(mote("run", "--target", "rv32", "--trace", tmp_path / "missing" / "t.json"), "--trace")
    assert_one_line_error(mote("run", "--target", "rv32", "--trace", "/dev/null"), "--trace")
    assert_one_line_error(mote("run", "--target", "rv32", "--clock-mhz", "0", "--trace", tmp_path / "t.json"),
                          "--clock-mhz")
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(importlib.util.find_spec("perfetto") is None, reason="the perfetto package is not installed")
def test_perfetto_trace_processor_loads_it(tmp_path: Path) -> None:
    from perfetto.trace_processor import TraceProcessor

    data, tracks, _ = _traced(tmp_path, "profile", "--accel", "dla:timed=1")
    with TraceProcessor(trace=str(tmp_path / "trace.json")) as tp:
        count = next(iter(tp.query("select count(*) as n from slice"))).n
    assert count == sum(len(spans) for spans in tracks.values())
