"""The page of `mote accel bench --html`: the speed-up table of an RTL accelerator with bars of the speed-up
and of the cycles with and without it, per model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.explore.rtl_bench import HEADERS, notes, table_rows
from mote.report_html.page import document, esc, section, table, write_page
from mote.report_html.svg import Bar, bar_chart


def render_rtl_bench_page(rows: list[dict[str, Any]], accel: Any, designs: list[Path]) -> str:
    speedups = [Bar(r["model"], r["speedup"]) for r in rows]
    cycles = [bar for r in rows for bar in (Bar(f"{r['model']}: CPU only", r["cpu_only_cycles"]),
                                           Bar(f"{r['model']}: with the RTL", r["total_cycles"], highlight=True))]
    body = table(HEADERS, table_rows(rows), numeric=range(1, len(HEADERS) - 1))
    body += "".join(f'<p class="note">{esc(line)}</p>' for line in notes(rows, accel))
    charts = (f"<figure><figcaption>speed-up</figcaption>{bar_chart('speed-up', speedups, 'x', digits=2)}</figure>"
              f"<figure><figcaption>cycles per inference</figcaption>{bar_chart('cycles', cycles, 'cycles')}"
              "</figure>")
    subtitle = (f"{accel.name} simulated as {', '.join(d.name for d in designs)} (top {accel.rtl_top}) on the "
                "virtual platform, against the CPU alone; cost model vs RTL: the accelerator's cost() against the "
                "RTL's cycles")
    return document(f"mote accel bench: {accel.name}", subtitle,
                    [section("speed-up per model", body), section("figures", charts)])


def write_rtl_bench_page(path: Path, rows: list[dict[str, Any]], accel: Any, designs: list[Path]) -> None:
    write_page(path, render_rtl_bench_page(rows, accel, designs))
