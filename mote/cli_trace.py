"""`--trace OUT.json`: a run's timeline (mote.sim.timeline) as a Chrome/Perfetto trace, in the Trace Event
Format's JSON object form: one process, a thread per track (the CPU's layers, the accelerator's jobs, each
DMA channel, each core of a cluster), a complete ("X") event per span with its start and length in µs
(cycles at the clock frequency `--clock-mhz`, 100 MHz by default), and metadata ("M") events naming the
process and the threads. Open it in ui.perfetto.dev or chrome://tracing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mote.errors import MoteError
from mote.outputs import atomic_path
from mote.pipeline import RunReport
from mote.sim.timeline import ACCEL, CPU, Span
from mote.targets.rv32 import SimFigures

DEFAULT_MHZ = 100.0  # the virtual platform has no clock frequency of its own: cycles become µs at this one
PID = 1


def _tid(track: str) -> int:
    """Threads in a stable order: the CPU, the accelerator, the DMA channels, the cores."""
    if track == CPU:
        return 1
    if track == ACCEL:
        return 2
    kind, _, number = track.rpartition(" ")
    return (10 if kind.startswith("DMA") else 100) + int(number)


def trace_events(report: RunReport, mhz: float = DEFAULT_MHZ) -> dict[str, Any]:
    """The trace of one virtual-platform run as a JSON-ready dict."""
    figures = report.figures
    if not isinstance(figures, SimFigures):
        raise MoteError("--trace needs the rv32 target, which times each layer: use --target rv32")
    sim, data = figures.sim, report.to_json()
    layers = {layer["index"]: layer for layer in data["layers"]}

    def us(cycles: int) -> float:
        return round(cycles / mhz, 6)

    def event(span: Span, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "cat": span.track.split(" ")[0], "ph": "X", "ts": us(span.start),
                "dur": us(span.cycles), "pid": PID, "tid": _tid(span.track),
                "args": {"start_cycle": span.start, "cycles": span.cycles, **args}}

    events = []
    in_layers = 0
    for span in sim.timeline:
        args = dict(span.args)
        name = span.name
        layer = layers.get(args.get("layer", -1))
        if layer is not None:
            name = f"{layer['name']} ({layer['op']})"
            if span.track == CPU:
                in_layers += span.cycles
                args.update(op=layer["op"], kernel=layer["kernel"], runs_on=layer["runs_on"], macs=layer["macs"],
                            instructions=layer.get("instructions", 0), cpu_cycles=layer.get("cycles", 0),
                            accel_cycles=layer.get("accel_cycles", 0))
        events.append(event(span, name, args))
    total = sim.total_cycles if report.compiled.accelerator is not None and sim.accel_cycles else sim.cycles
    run = Span(CPU, "model_run", 0, total)
    events.insert(0, event(run, "model_run", {"instructions": sim.instructions, "cpu_cycles": sim.cycles,
                                              "accel_cycles": sim.accel_cycles, "accel_jobs": sim.accel_jobs,
                                              "outside_layers_cycles": total - in_layers, "clock_mhz": mhz}))
    tracks = sorted({span.track for span in sim.timeline} | {CPU}, key=_tid)
    meta = [{"name": "process_name", "ph": "M", "pid": PID, "tid": 0,
             "args": {"name": f"{Path(report.model).name} on {report.target} ({sim.platform})"}}]
    for track in tracks:
        meta.append({"name": "thread_name", "ph": "M", "pid": PID, "tid": _tid(track),
                     "args": {"name": track if track != ACCEL or report.compiled.accelerator is None
                              else f"accelerator {report.compiled.accelerator.name}"}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": PID, "tid": _tid(track),
                     "args": {"sort_index": _tid(track)}})
    return {"traceEvents": meta + events, "displayTimeUnit": "ns",
            "otherData": {"model": Path(report.model).name, "clock_mhz": mhz, "cycles": total}}


def write_trace(report: RunReport, path: Path, mhz: float = DEFAULT_MHZ) -> None:
    """The trace written beside `path` and renamed over it (mote.outputs: never a directory or a device)."""
    trace = trace_events(report, mhz)
    with atomic_path(path, "--trace") as tmp:
        tmp.write_text(json.dumps(trace), encoding="utf-8")
