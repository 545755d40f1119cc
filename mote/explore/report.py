"""Exploration results: a table on screen, results.csv and results.json.

With a platform (mote.explore.platform_space) every row also has `platform`, `cores`, `l1` (bytes) and
`dma_bw` (bytes per cycle), and `speedup` with `speedup_vs`, its baseline (mote.explore.sweep.add_speedups).

The rows keep their settings' declared types in the JSON (`"pes": 64`, `"sram": 524288`, `"timed":
true`); the screen table shows byte sizes with binary units. Its columns follow the accelerator: its
cost categories (those with cycles), and the figures its jobs report (PE utilization, tiled jobs,
inputs kept resident) where they do, and with weight modes the weights' bytes, the SRAM used and the
accuracy against the 8-bit model (top-1 agreement, mean absolute output error) beside the cycles.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from rich.table import Table

from mote.outputs import write_file_atomic
from mote.terminal import console, markup

CYCLES = ("total_cycles", "accel_cycles", "cpu_cycles", "energy_uj", "speedup", "area_mm2", "pareto")
MAX_SHOWN = 100  # more rows than this: the screen table shows the Pareto front's (all are in the files)
REPORTED = ("utilization", "tiled_jobs", "resident_inputs")  # present only for accelerators that report them
# present with weight modes (mote.explore.evaluate): shown beside the cycles and energy
WEIGHTS = ("weight_bytes", "sram_used_bytes", "top1_agreement", "mean_abs_error")
_UNITS = ((30, "GiB"), (20, "MiB"), (10, "KiB"))


def size_text(size: int) -> str:
    """Bytes with the largest binary unit that divides them: 524288 -> 512KiB."""
    for shift, unit in _UNITS:
        if size and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return str(size)


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


def _cell(row: dict[str, Any], key: str, sizes: Collection[str]) -> str:
    value = row.get(key)
    if isinstance(value, bool) and key == "pareto":
        return "*" if value else ""
    if key in sizes and isinstance(value, int) and not isinstance(value, bool):
        return size_text(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.1%}" if key in ("utilization", "top1_agreement") else f"{value:g}"
    return markup("" if value is None else value)


def show(rows: list[dict[str, Any]], checks: list[dict[str, Any]], seconds: float, keys: list[str],
         categories: tuple[str, ...] = (), sizes: Collection[str] = ()) -> None:
    """The table of `rows` (settings `keys`, of which `sizes` are byte sizes; the accelerator's cost
    `categories`) and the verification lines."""
    out = console()
    title = f"{len(rows)} points in {seconds:.1f} s"
    if len(rows) > MAX_SHOWN and any(r.get("pareto") for r in rows):
        rows = [r for r in rows if r.get("pareto")][:MAX_SHOWN]
        title += f"; the {len(rows)} on the Pareto front shown (all in results.csv)"
    table = Table(title=title)
    present = columns(rows)
    no_accelerator = all(not r.get("accel_cycles") for r in rows) and not categories
    shown = ["model", *keys, *[c for c in CYCLES if c in present and not (c == "accel_cycles" and no_accelerator)],
             *[c for c in WEIGHTS if c in present],
             *[c for c in categories if any(r.get(c) for r in rows)],
             *[c for c in REPORTED if c in present], "cpu_nodes"]
    for name in shown:
        table.add_column(name, justify="left" if name in ("model", *keys) else "right")
    for row in rows:
        settings = [_cell(row, k, sizes) for k in ("model", *keys)]
        if row.get("status") != "ok":
            table.add_row(*settings, markup(row.get("status", "")), *[""] * (len(shown) - len(keys) - 2))
            continue
        table.add_row(*settings, *[_cell(row, k, sizes) for k in shown[len(keys) + 1:]])
    out.print(table)
    for c in checks:
        out.print(markup(f"verify {c['model']} {c['accel']}: cost model {c['model_cycles']:,} vs VP "
                         f"{c['vp_cycles']:,} accelerator cycles ({c['error_percent']:+.2f}%), "
                         f"bit-exact: {c['bit_exact']}"))
