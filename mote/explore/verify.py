"""`--verify N`: re-run N sampled points on the virtual platform (timed mode) and compare the cost
model's cycles with the accelerator cycles the VP counted (for the DLA, its command-level timing
simulation, mote.accel.dla.timing), and the outputs with the CPU-only run."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.loader import find_accelerator
from mote.explore.sweep import spec


def verify(models: list[Path], accel: str, rows: list[dict[str, Any]], n: int, seed: int = 0) -> list[dict[str, Any]]:
    from mote.pipeline import run
    from mote.targets.rv32 import Rv32Config

    by_stem = {m.stem: m for m in models}
    ok = [r for r in rows if r.get("status") == "ok"]
    sample = random.Random(seed).sample(ok, min(n, len(ok)))
    cpu: dict[str, dict[str, np.ndarray]] = {}
    checks = []
    for row in sample:
        model = by_stem[row["model"]]
        settings = {k: str(v) for k, v in row.items() if k not in _RESULT_KEYS}
        if row["model"] not in cpu:
            cpu[row["model"]] = run(model, "rv32", rv32=Rv32Config(cc="zig")).outputs
        accelerator = find_accelerator(spec(accel, {**settings, "timed": "1"}))
        report = run(model, "rv32", accelerator=accelerator, rv32=Rv32Config(cc="zig"))
        vp = int(report.extra.get("accel_cycles", 0))
        same = all(np.array_equal(report.outputs[k], v) for k, v in cpu[row["model"]].items())
        checks.append({"model": row["model"], "accel": accelerator.label, "model_cycles": row["cycles"],
                       "vp_cycles": vp, "error_percent": 100.0 * (row["cycles"] - vp) / vp if vp else 0.0,
                       "bit_exact": bool(report.bit_exact and same)})
    return checks


_RESULT_KEYS = {"model", "status", "cycles", "utilization", "macs", "jobs", "cpu_nodes", "tiled_jobs",
                "resident_inputs", "CONV", "DEPTH", "REQUANT", "POOL", "ELTWISE", "DMA", "CONTROL"}
