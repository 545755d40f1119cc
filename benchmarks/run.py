"""`make bench`: measures the figures the issues name and writes benchmarks/RESULTS.md.

The machine is shared and noisy, so every speed figure is a median, quoted as a ratio against a
peer measured in the same run (TFLite Micro's interpreter, the `tflite-micro` package).
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.inputs import random_inputs
from mote.targets.host import build_host

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO.parent / "shared" / "models" / "mlperf-tiny"
MLPERF_TINY = {"AD (ToyCar)": "ad01_int8.tflite", "KWS (DS-CNN)": "kws_ref_model.tflite",
               "IC (ResNet-8)": "pretrainedResnet_quant.tflite", "VWW (MobileNetV1)": "vww_96_int8.tflite"}
REPEATS = 5


def tflm_arena_head(path: Path) -> int:
    """TFLite Micro's planned activation bytes ('Arena allocation head'), read from its C-level stderr."""
    interp = runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    with tempfile.TemporaryFile(mode="w+") as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            interp.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        match = re.search(r"Arena allocation head (\d+) bytes", log.read())
    assert match, "TFLite Micro printed no allocation report"
    return int(match.group(1))


def tflm_us_per_invoke(path: Path, inputs: dict[str, np.ndarray], names: list[str]) -> float:
    interp = runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    for i, name in enumerate(names):
        interp.set_input(inputs[name], i)
    interp.invoke()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        interp.invoke()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def measure(label: str, file: str, work: Path) -> dict[str, float | str]:
    path = MODELS / file
    compile_s = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        compiled = compile_graph(load(path))
        compile_s.append(time.perf_counter() - start)
    graph = compiled.graph
    inputs = random_inputs(graph, 0)
    binary = build_host(compiled, work / path.stem)
    iterations = max(3, int(1e8 / max(compiled.macs, 1)))
    mote_us = statistics.median(binary.run(inputs, iterations)[1] or 0.0 for _ in range(REPEATS))
    tflm_us = tflm_us_per_invoke(path, inputs, [t.name for t in graph.inputs])
    return {"model": label, "macs": compiled.macs, "mote_us": mote_us, "tflm_us": tflm_us,
            "speedup": tflm_us / mote_us, "arena": compiled.plan.size, "bound": compiled.plan.lower_bound,
            "tflm_arena": tflm_arena_head(path), "compile_s": statistics.median(compile_s)}


def report(rows: list[dict[str, float | str]]) -> str:
    command = "make bench  (python benchmarks/run.py)"
    lines = [
        "# Benchmark results", "",
        f"Written by `{command}` on {platform.machine()} with Python {platform.python_version()}, "
        f"{os.cpu_count()} cores. Medians of {REPEATS} runs; peers measured in the same run.", "",
        "## Host: mote's generated C (-O2, system cc) against TFLite Micro's `invoke()`", "",
        "Peer: the `tflite-micro` package's interpreter (reference kernels), same random int8 input. "
        "Goal: mote at least 3x faster on every model.", "",
        "| model | MACs | mote µs/inference | TFLite Micro µs/invoke | speed-up |",
        "|---|---:|---:|---:|---:|",
        *[f"| {r['model']} | {r['macs']:,} | {r['mote_us']:.1f} | {r['tflm_us']:.1f} | {r['speedup']:.1f}x |"
          for r in rows], "",
        "## Arena: mote's static arena against TFLite Micro's planner and the lower bound", "",
        "Lower bound: the most tensor bytes live at once (reshape in place). TFLite Micro: the "
        "'Arena allocation head' of its allocation report (activations only, no persistent data).", "",
        "| model | mote arena B | lower bound B | TFLite Micro B | mote / bound |",
        "|---|---:|---:|---:|---:|",
        *[f"| {r['model']} | {r['arena']:,} | {r['bound']:,} | {r['tflm_arena']:,} | "
          f"{r['arena'] / r['bound']:.3f} |" for r in rows], "",
        "## Compile time (load + plan + generate C, in process)", "",
        "Goal: under 2 s per model.", "",
        "| model | compile s |", "|---|---:|",
        *[f"| {r['model']} | {r['compile_s']:.3f} |" for r in rows], "",
    ]
    return "\n".join(lines)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-bench-") as tmp:
        rows = []
        for label, file in MLPERF_TINY.items():
            print(f"measuring {label} ...", file=sys.stderr)
            rows.append(measure(label, file, Path(tmp)))
    text = report(rows)
    (REPO / "benchmarks" / "RESULTS.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
