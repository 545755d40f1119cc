"""A stream of calls (`mote run --calls N`): one build, the frames run in order on the target as calls of one
program, the reference interpreter carrying the model's state from call to call and TFLite Micro's
interpreter invoked call by call on one instance; every call compared.

    report = run_stream(Path("kws.tflite"), calls=30, target="rv32")
    report.calls[7].mismatches, report.calls[7].tflite_micro.identical

A model without state simply runs N independent calls (useful for timing on the virtual platform).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.interface import Accelerator
from mote.errors import MoteError
from mote.frontend.onnx import is_onnx
from mote.inputs import load_stream, random_stream
from mote.pipeline import RunReport, prepare, project_dir
from mote.reference import interpret, reset_state
from mote.targets import Target, TargetFigures, find_target
from mote.tflm_match import TflmMatch, tflm_stream_match

__all__ = ["MAX_CALLS", "CallReport", "StreamReport", "run_stream"]

MAX_CALLS = 10_000


@dataclass(frozen=True)
class CallReport:
    """One call of a stream: its outputs, how many differ from the reference, what the target measured."""

    outputs: dict[str, np.ndarray]
    mismatches: int
    figures: TargetFigures
    tflite_micro: TflmMatch | None

    def to_json(self, index: int) -> dict[str, Any]:
        tflm = self.tflite_micro.to_json() if self.tflite_micro is not None else {}
        return {"call": index, "bit_exact": self.mismatches == 0, "mismatches": self.mismatches,
                **self.figures.call_json(), **tflm}


@dataclass
class StreamReport(RunReport):
    """A RunReport of the whole stream: `outputs` have a leading call axis, `mismatches` are the stream's,
    `figures` the first call's, `tflite_micro` the stream's summary (totals and largest differences);
    `calls` holds each call's."""

    calls: list[CallReport] = field(default_factory=list)

    @property
    def first_mismatch(self) -> int | None:
        """The first call whose outputs differ from the reference, or None."""
        return next((k for k, c in enumerate(self.calls) if c.mismatches), None)

    @property
    def first_tflm_difference(self) -> int | None:
        """The first call whose outputs are not identical with TFLite Micro's (when it ran), or None."""
        return next((k for k, c in enumerate(self.calls)
                     if c.tflite_micro is not None and c.tflite_micro.ran and not c.tflite_micro.identical), None)

    def figure_summary(self) -> dict[str, dict[str, float]]:
        """Each per-call figure of the target (rv32: instructions, cycles): first, median, min, max."""
        values: dict[str, list[float]] = {}
        for call in self.calls:
            for key, value in call.figures.call_json().items():
                values.setdefault(key, []).append(value)
        return {key: {"first": v[0], "median": statistics.median(v), "min": min(v), "max": max(v)}
                for key, v in values.items()}

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["calls"] = len(self.calls)
        out["first_mismatch_call"] = self.first_mismatch
        if self.tflite_micro is not None:
            matches = [c.tflite_micro for c in self.calls if c.tflite_micro is not None]
            out["tflite_micro"].update(agrees=all(m.agrees for m in matches),
                                       identical_calls=sum(m.identical for m in matches),
                                       first_difference_call=self.first_tflm_difference)
        out["call_figures"] = self.figure_summary()
        out["per_call"] = [c.to_json(k) for k, c in enumerate(self.calls)]
        return out


def run_stream(model_path: Path, *, calls: int, target: str | Target = "host", input_path: Path | None = None,
               seed: int = 0, work_dir: Path | None = None, accelerator: Accelerator | None = None,
               check_tflm: bool = False) -> StreamReport:
    """`calls` calls of a .tflite model on `target`, in one build: the frames of `input_path` (each array
    [calls, *shape]) or random ones (frame k seeded by seed + k). Each call's outputs are compared with the
    reference interpreter's, which carries the model's state across the calls, and (`check_tflm`) with
    TFLite Micro's, invoked call by call on one interpreter."""
    if not 1 <= calls <= MAX_CALLS:
        raise MoteError(f"--calls {calls}: give a number of calls from 1 to {MAX_CALLS:,}")
    if is_onnx(model_path):
        raise MoteError(f"{model_path}: --calls runs .tflite models (an ONNX model keeps no state across calls); "
                        "run it without --calls")
    chosen = find_target(target) if isinstance(target, str) else target
    original, compiled, _ = prepare(model_path, chosen, accelerator)
    frames = load_stream(original, input_path, calls) if input_path else random_stream(original, seed, calls)
    state = reset_state(original)
    expected = [{k: v.copy() for k, v in interpret(original, frame, state).items()} for frame in frames]
    with project_dir(compiled, work_dir) as project:
        runs = chosen.run_stream(compiled, project, frames)
    outputs = [run.outputs for run in runs]
    tflm = tflm_stream_match(model_path, original, frames, outputs) if check_tflm else [None] * calls
    reports = [CallReport(run.outputs, sum(int(np.count_nonzero(run.outputs[k] != v)) for k, v in want.items()),
                          run.figures, match) for run, want, match in zip(runs, expected, tflm)]
    stacked = {t.name: np.stack([out[t.name] for out in outputs]) for t in original.outputs}
    return StreamReport(str(model_path), chosen.name, compiled, stacked, sum(r.mismatches for r in reports),
                        runs[0].figures, {}, _summary(tflm) if check_tflm else None, calls=reports)


def _summary(matches: list[TflmMatch | None]) -> TflmMatch:
    """The stream's totals and largest differences as one TflmMatch (not run if any call did not run)."""
    ran = [m for m in matches if m is not None]
    refused = next((m for m in ran if not m.ran), None)
    if refused is not None:
        return refused
    return TflmMatch(True, sum(m.mismatches for m in ran), max(m.max_ulp for m in ran), bound=ran[0].bound,
                     max_ulp_at_scale=max(m.max_ulp_at_scale for m in ran))
