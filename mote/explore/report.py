"""Exploration results: a table on screen, results.csv and results.json."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from mote.accel.dla.cost import CATEGORIES
from mote.outputs import write_file_atomic
from mote.terminal import console, markup


def columns(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row))
    return list(seen)


def write(rows: list[dict[str, Any]], checks: list[dict[str, Any]], seconds: float, out: Path) -> None:
    """results.csv and results.json in `out`, each written beside its place and renamed over it."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, columns(rows))
    writer.writeheader()
    writer.writerows(rows)
    write_file_atomic(out / "results.csv", text.getvalue(), "--out")
    summary = {"points": len(rows), "seconds": round(seconds, 3),
               "points_per_minute": round(60 * len(rows) / seconds, 1) if seconds else None}
    write_file_atomic(out / "results.json", json.dumps({"summary": summary, "results": rows, "verify": checks},
                                                       indent=1), "--out")


def show(rows: list[dict[str, Any]], checks: list[dict[str, Any]], seconds: float, keys: list[str]) -> None:
    out = console()
    table = Table(title=f"{len(rows)} points in {seconds:.1f} s")
    shown = ["model", *keys, "cycles", "utilization", *[c for c in CATEGORIES if any(r.get(c) for r in rows)],
             "tiled_jobs", "resident_inputs", "cpu_nodes"]
    for name in shown:
        table.add_column(name, justify="left" if name in ("model", *keys) else "right")
    for row in rows:
        if row.get("status") != "ok":
            table.add_row(*[markup(row.get(k, "")) for k in ("model", *keys)], markup(row.get("status", "")),
                          *[""] * (len(shown) - len(keys) - 2))
            continue
        table.add_row(*[f"{row[k]:,}" if isinstance(row.get(k), int) else markup(row.get(k, "")) for k in shown])
    out.print(table)
    for c in checks:
        out.print(markup(f"verify {c['model']} {c['accel']}: cost model {c['model_cycles']:,} vs VP "
                         f"{c['vp_cycles']:,} cycles ({c['error_percent']:+.2f}%), bit-exact: {c['bit_exact']}"))
