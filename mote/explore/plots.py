"""PNG plots of an exploration, for any accelerator and platform: per model, stacked cycle bars by the
accelerator's cost categories plus the CPU's share (seed 004, Figure 4), and for every swept numeric
setting, cycles and energy per inference against that setting (one line per combination of the other
settings); with the platform's `cores` swept, the speed-up against the cores too; with `weight_bits` swept,
the weight bytes and the output error against the 8-bit model (mote.explore.accuracy) too. The y axes start
at zero."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from mote.explore.report import size_text
from mote.outputs import atomic_path, safe_file_name

MAX_BARS = 64  # more points than this: the breakdown shows the Pareto front's (mote.explore.pareto)
MAX_SERIES = 12  # more lines than this in a plot against one setting: not drawn (see the Pareto plot)


def _label(row: dict[str, Any], keys: list[str], sizes: Collection[str]) -> str:
    return " ".join(size_text(row[k]) if k in sizes else str(row[k]) for k in keys if k in row)


def _numeric(rows: list[dict[str, Any]], key: str) -> bool:
    values = {r.get(key) for r in rows}
    return len(values) > 1 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def draw(rows: list[dict[str, Any]], keys: list[str], out: Path, categories: tuple[str, ...] = (),
         sizes: Collection[str] = ()) -> list[Path]:
    """The plots of `rows` (settings `keys`, of which `sizes` are byte sizes) in `out`; their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    ok = [r for r in rows if r.get("status") == "ok"]
    for model in dict.fromkeys(r["model"] for r in ok):
        mine = [r for r in ok if r["model"] == model]
        bars = mine if len(mine) <= MAX_BARS else [r for r in mine if r.get("pareto")][:MAX_BARS]
        if bars:
            written.append(_breakdown(plt, bars, keys, categories, sizes,
                                      out / f"{safe_file_name(model)}_breakdown.png"))
        for key in keys:
            series = {tuple(r.get(k) for k in keys if k != key) for r in mine}
            if not _numeric(mine, key) or len(series) > MAX_SERIES:
                continue
            stem = f"{safe_file_name(model)}_{safe_file_name(key)}"
            written.append(_versus(plt, mine, keys, key, sizes, out / f"{stem}.png", _cycles_measure(mine)))
            if all(r.get("energy_uj") is not None for r in mine):
                written.append(_versus(plt, mine, keys, key, sizes, out / f"{stem}_energy.png", ENERGY))
            for measure in (WEIGHT_BYTES, ERROR) if key == "weight_bits" else ():
                if all(r.get(measure[0]) is not None for r in mine):
                    written.append(_versus(plt, mine, keys, key, sizes, out / f"{stem}_{measure[0]}.png", measure))
            if key == "cores" and all(r.get("speedup") is not None for r in mine):
                written.append(_versus(plt, mine, keys, key, sizes, out / f"{stem}_speedup.png", _speedup(mine)))
    return written


def _save(plt: Any, fig: Any, path: Path) -> Path:
    fig.tight_layout()
    with atomic_path(path, "--out") as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return path


def _breakdown(plt: Any, rows: list[dict[str, Any]], keys: list[str], categories: tuple[str, ...],
               sizes: Collection[str], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(rows)), 4.5))
    bottom = [0.0] * len(rows)
    for name, key in [*((f"accelerator: {c}", c) for c in categories), ("CPU", "cpu_cycles")]:
        values = [float(r.get(key) or 0) for r in rows]
        if any(values):
            ax.bar(range(len(rows)), values, bottom=bottom, label=name)
            bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(rows)), [_label(r, keys, sizes) for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_xlabel(" ".join(keys) or "configuration")
    ax.set_ylabel("cycles")
    ax.set_title(f"{rows[0]['model']}: cycles by cost category")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    return _save(plt, fig, path)


Measure = tuple[str, str, str]  # the row's column, the y axis label, the title's words


ENERGY: Measure = ("energy_uj", "energy per inference (µJ)", "energy")
WEIGHT_BYTES: Measure = ("weight_bytes", "weights (bytes)", "weight bytes")
ERROR: Measure = ("mean_abs_error", "mean |output - 8-bit model's output| (int8 steps)", "output error")


def _cycles_measure(rows: list[dict[str, Any]]) -> Measure:
    if all(r.get("total_cycles") is not None for r in rows):
        return ("total_cycles", "total cycles (accelerator + CPU)", "cycles")
    return ("accel_cycles", "accelerator cycles", "cycles")


def _speedup(rows: list[dict[str, Any]]) -> Measure:
    return ("speedup", f"speed-up over {rows[0].get('speedup_vs', 'the baseline')}", "speed-up")


AXES = {"cores": "cores", "l1": "L1 size", "dma_bw": "DMA bandwidth (bytes per cycle)",
        "weight_bits": "weight bits"}


def _versus(plt: Any, rows: list[dict[str, Any]], keys: list[str], key: str, sizes: Collection[str],
            path: Path, measure: Measure) -> Path:
    column, ylabel, what = measure
    fig, ax = plt.subplots(figsize=(6, 4))
    others = [k for k in keys if k != key]
    series: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        name = " ".join(f"{k}={_label(r, [k], sizes)}" for k in others) or r["model"]
        series.setdefault(name, []).append((float(r[key]), float(r[column])))
    for name, points in series.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    xs = sorted({float(r[key]) for r in rows})
    if column == "speedup" and xs[0] > 0:
        ax.plot(xs, [x / xs[0] for x in xs], linestyle="--", color="grey", label="linear")
    size = key in sizes
    if size:  # byte sizes on a log scale, ticks in binary units (a log axis cannot start at zero)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [size_text(int(x)) for x in xs])
        ax.minorticks_off()
    else:
        ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    name = AXES.get(key, key)
    ax.set_xlabel(f"{name} (bytes)" if size and key not in AXES else name)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{rows[0]['model']}: {what} against {name}")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)
