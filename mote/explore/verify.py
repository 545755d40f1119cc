"""`--verify N`: re-run N sampled points on the virtual platform (rv32 or a Cortex-M core: `--verify-target`,
the default toolchain) in timed
mode and compare the cost model's accelerator cycles with those the VP counted (for the DLA, its
command-level timing simulation, mote.accel.dla.timing; for most accelerators, their `cost`), and the
outputs with the CPU-only run. Works for any accelerator whose Config has a `timed` setting; for one
without, the VP counts no accelerator cycles and the check reports only bit-exactness."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.loader import find_accelerator
from mote.explore.space import spec, value_text


def verify(models: list[Path], accel: str, rows: list[dict[str, Any]], n: int, keys: list[str],
           seed: int = 0, target: str = "rv32") -> list[dict[str, Any]]:
    """`n` sampled rows of status ok (their settings: `keys`), each run on the VP's `target` core and
    compared."""
    from mote.pipeline import run

    by_stem = {m.stem: m for m in models}
    ok = [r for r in rows if r.get("status") == "ok"]
    sample = random.Random(seed).sample(ok, min(n, len(ok)))
    cpu: dict[str, dict[str, np.ndarray]] = {}
    checks = []
    for row in sample:
        model = by_stem[row["model"]]
        settings = {k: value_text(row[k]) for k in keys}
        if row["model"] not in cpu:
            cpu[row["model"]] = run(model, target=target).outputs
        accelerator = _timed(find_accelerator(spec(accel, settings)))
        report = run(model, target=target, accelerator=accelerator)
        vp = int(report.to_json().get("accel_cycles", 0))
        same = all(np.array_equal(report.outputs[k], v) for k, v in cpu[row["model"]].items())
        predicted = row["accel_cycles"]
        checks.append({"model": row["model"], "target": target, "accel": accelerator.label, "model_cycles": predicted,
                       "vp_cycles": vp, "error_percent": 100.0 * (predicted - vp) / vp if vp else 0.0,
                       "bit_exact": bool(report.bit_exact and same)})
    return checks


def _timed(accelerator: Any) -> Any:
    """The accelerator with its `timed` setting on, where it has one."""
    config = accelerator.config
    names = {f.name for f in dataclasses.fields(config)} if dataclasses.is_dataclass(config) else set()
    if "timed" not in names or config.timed:
        return accelerator
    return type(accelerator)(dataclasses.replace(config, timed=True))
