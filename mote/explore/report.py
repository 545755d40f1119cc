"""Exploration results: a table on screen, results.csv and results.json."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mote.accel.dla.cost import CATEGORIES


def columns(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def write(rows: list[dict[str, Any]], checks: list[dict[str, Any]], seconds: float, out: Path) -> None:
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, columns(rows))
        writer.writeheader()
        writer.writerows(rows)
    summary = {"points": len(rows), "seconds": round(seconds, 3),
               "points_per_minute": round(60 * len(rows) / seconds, 1) if seconds else None}
    (out / "results.json").write_text(json.dumps({"summary": summary, "results": rows, "verify": checks}, indent=1))


def show(rows: list[dict[str, Any]], checks: list[dict[str, Any]], seconds: float, keys: list[str]) -> None:
    console = Console() if sys.stdout.isatty() else Console(width=160)
    table = Table(title=f"{len(rows)} points in {seconds:.1f} s")
    shown = ["model", *keys, "cycles", "utilization", *[c for c in CATEGORIES if any(r.get(c) for r in rows)],
             "tiled_jobs", "resident_inputs", "cpu_nodes"]
    for name in shown:
        table.add_column(name, justify="left" if name in ("model", *keys) else "right")
    for row in rows:
        if row.get("status") != "ok":
            table.add_row(*[str(row.get(k, "")) for k in ("model", *keys)], row.get("status", ""),
                          *[""] * (len(shown) - len(keys) - 2))
            continue
        table.add_row(*[f"{row[k]:,}" if isinstance(row.get(k), int) else str(row.get(k, "")) for k in shown])
    console.print(table)
    for c in checks:
        console.print(f"verify {c['model']} {c['accel']}: cost model {c['model_cycles']:,} vs VP {c['vp_cycles']:,} "
                      f"cycles ({c['error_percent']:+.2f}%), bit-exact: {c['bit_exact']}")
