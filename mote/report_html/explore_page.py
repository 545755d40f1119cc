"""The page of `mote explore --html`: the exploration's plots (mote.explore.plots, the same PNGs as in
--out), its results table and the verification lines; `extra` figures (e.g. a Pareto front) join the plots."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from mote.accel.loader import accelerator_class
from mote.explore import pareto_plot, plots
from mote.explore.platform_space import PLATFORM_SIZES
from mote.explore.report import CYCLES, REPORTED, columns, size_text
from mote.explore.space import size_settings
from mote.report_html.page import Figure, document, esc, figures_html, num, section, summary_list, table, write_page


def _cell(row: dict[str, Any], key: str, sizes: Collection[str]) -> str:
    value = row.get(key)
    if key in sizes and isinstance(value, int) and not isinstance(value, bool):
        return size_text(value)
    if isinstance(value, float):
        return f"{value:.1%}" if key == "utilization" else f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return num(value)
    return "" if value is None else str(value)


def results_table(rows: list[dict[str, Any]], keys: list[str], categories: Sequence[str],
                  sizes: Collection[str]) -> str:
    present = columns(rows)
    shown = ["model", *keys, "status", *[c for c in CYCLES if c in present],
             *[c for c in categories if any(r.get(c) for r in rows)], *[c for c in REPORTED if c in present],
             *(["cpu_nodes"] if "cpu_nodes" in present else [])]
    body = [[_cell(r, k, sizes) for k in shown] for r in rows]
    numeric = range(len(keys) + 2, len(shown))
    return table(shown, body, numeric=numeric)


def exploration_figures(rows: list[dict[str, Any]], keys: list[str], categories: tuple[str, ...],
                        sizes: Collection[str]) -> list[Figure]:
    """explore's own plots and its Pareto front, drawn again into a temporary directory and read back as PNG
    bytes."""
    with tempfile.TemporaryDirectory(prefix="mote-html-") as tmp:
        paths = [*pareto_plot.draw(rows, Path(tmp)), *plots.draw(rows, keys, Path(tmp), categories, sizes)]
        return [Figure.from_png_file(_title(p, rows, keys), p) for p in paths]


def _title(path: Path, rows: list[dict[str, Any]], keys: list[str]) -> str:
    """A figure's title from its file name (plots.draw: <model>_breakdown.png, <model>_<key>[_energy|_speedup].png;
    pareto_plot.draw: <model>_pareto.png)."""
    stem = path.stem
    if stem.endswith("_breakdown"):
        return f"{stem[:-len('_breakdown')]}: cycles by cost category"
    if stem.endswith("_pareto"):
        return f"{stem[:-len('_pareto')]}: Pareto front of cycles, energy and area"
    for key in keys:
        for suffix, what in (("", "cycles"), ("_energy", "energy"), ("_speedup", "speed-up")):
            if stem.endswith(f"_{key}{suffix}"):
                return f"{stem[:-len(key) - len(suffix) - 1]}: {what} against {key}"
    return stem


def render_explore_page(rows: list[dict[str, Any]], keys: list[str], accel: str, checks: Sequence[dict[str, Any]] = (),
                        categories: tuple[str, ...] = (), sizes: Collection[str] = (),
                        extra: Sequence[Figure] = ()) -> str:
    ok = [r for r in rows if r.get("status") == "ok"]
    models = list(dict.fromkeys(str(r.get("model")) for r in rows))
    items = [("accelerator", accel), ("models", ", ".join(models)), ("swept", ", ".join(keys) or "-"),
             ("points", num(len(rows))), ("points ok", num(len(ok)))]
    best = min(ok, key=lambda r: r.get("total_cycles") or r.get("accel_cycles") or 0, default=None)
    if best is not None:
        items.append(("fewest cycles", " ".join(f"{k}={_cell(best, k, sizes)}" for k in ("model", *keys))
                      + f": {_cell(best, 'total_cycles' if best.get('total_cycles') else 'accel_cycles', sizes)}"))
    verify = "".join(f"<p>{esc(line)}</p>" for line in (
        f"verify {c['model']} {c['accel']}: cost model {num(c['model_cycles'])} vs VP {num(c['vp_cycles'])} "
        f"accelerator cycles ({c['error_percent']:+.2f}%), bit-exact: {c['bit_exact']}" for c in checks))
    figures = [*extra, *exploration_figures(rows, keys, categories, sizes)]
    sections = [section("Summary", summary_list(items)),
                section("Plots", figures_html(figures) if figures else '<p class="note">no point succeeded: '
                                                                       "nothing to plot</p>"),
                section("Results", results_table(rows, keys, categories, sizes))]
    if verify:
        sections.append(section("Cost model against the virtual platform", verify))
    return document(f"mote explore: {accel}", f"{len(rows)} points over {', '.join(models)}", sections)


def write_explore_page(path: Path, rows: list[dict[str, Any]], keys: list[str], accel: str,
                       checks: Sequence[dict[str, Any]] = (), categories: tuple[str, ...] = (),
                       sizes: Collection[str] = (), extra: Sequence[Figure] = ()) -> None:
    """The page of one exploration; `extra` figures (e.g. the Pareto front) come first among the plots."""
    write_page(path, render_explore_page(rows, keys, accel, checks, categories, sizes, extra))


def write_exploration(path: Path, rows: list[dict[str, Any]], keys: list[str], accel: str | None,
                      verified_in: Path | None = None, extra: Sequence[Figure] = ()) -> None:
    """The page of the exploration `mote explore` just ran: the accelerator's cost categories and size
    settings from its class (none without an accelerator; the platform's sizes too), the --verify lines
    from `verified_in`/results.json when given."""
    checks = json.loads((verified_in / "results.json").read_text()).get("verify", []) if verified_in else []
    categories = tuple(accelerator_class(accel)[0].cost_categories) if accel is not None else ()
    sizes = (size_settings(accel) if accel is not None else set()) | PLATFORM_SIZES
    write_explore_page(path, rows, keys, accel or "none", checks, categories, sizes, extra)
