"""The Pareto plot of an exploration, per model: total cycles against energy with area as colour (left),
and total cycles against area (right); every point in grey-blue, the front's points outlined and joined
in order of cycles; axes start at zero; one legend per panel and a labelled colour bar. With sub-byte
weights swept (rows with `mean_abs_error`), a third panel: total cycles against the output error, each
point labelled with its weight bits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.explore.plots import _save
from mote.outputs import safe_file_name


def draw(rows: list[dict[str, Any]], out: Path) -> list[Path]:
    """`<model>_pareto.png` in `out` for each model with rows that have cycles, energy and area (rows
    marked by mote.explore.pareto.mark); their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    full = [r for r in rows if r.get("status") == "ok" and all(
        r.get(k) is not None for k in ("total_cycles", "energy_uj", "area_mm2"))]
    for model in dict.fromkeys(r["model"] for r in full):
        mine = [r for r in full if r["model"] == model]
        written.append(_save(plt, figure(plt, mine), out / f"{safe_file_name(model)}_pareto.png"))
    return written


def figure(plt: Any, rows: list[dict[str, Any]]) -> Any:
    """The figure of one model's rows (each with cycles, energy, area and `pareto`)."""
    error = all(r.get("mean_abs_error") is not None for r in rows)
    fig, axes = plt.subplots(1, 3 if error else 2, figsize=(16 if error else 11, 4.5))
    left, right = axes[0], axes[1]
    on = sorted((r for r in rows if r.get("pareto")), key=lambda r: r["total_cycles"])
    scale, unit = (1e6, "millions") if max(r["total_cycles"] for r in rows) >= 1e6 else (1e3, "thousands")
    cycles = [r["total_cycles"] / scale for r in rows]
    area = [r["area_mm2"] for r in rows]
    dots = left.scatter(cycles, [r["energy_uj"] for r in rows], c=area, cmap="viridis", s=18, alpha=0.7,
                        label=f"configurations ({len(rows)})")
    left.scatter([r["total_cycles"] / scale for r in on], [r["energy_uj"] for r in on], facecolors="none",
                 edgecolors="red", s=60, linewidths=1.2, label=f"Pareto front ({len(on)})")
    fig.colorbar(dots, ax=left).set_label("area (mm²)")
    left.set_xlabel(f"latency: total cycles ({unit})")
    left.set_ylabel("energy per inference (µJ)")
    left.set_title("cycles × energy (colour: area)")
    right.scatter(cycles, area, s=18, alpha=0.7, color="tab:blue", label=f"configurations ({len(rows)})")
    right.plot([r["total_cycles"] / scale for r in on], [r["area_mm2"] for r in on], "o--", color="red",
               markerfacecolor="none", label=f"Pareto front ({len(on)})")
    right.set_xlabel(f"latency: total cycles ({unit})")
    right.set_ylabel("area (mm²)")
    right.set_title("cycles × area")
    if error:
        third = axes[2]
        third.scatter(cycles, [r["mean_abs_error"] for r in rows], s=18, alpha=0.7, color="tab:blue",
                      label=f"configurations ({len(rows)})")
        third.plot([r["total_cycles"] / scale for r in on], [r["mean_abs_error"] for r in on], "o", color="red",
                   markerfacecolor="none", label=f"Pareto front ({len(on)})")
        for r, x in zip(rows, cycles):
            if r.get("weight_bits") is not None:
                third.annotate(f"int{r['weight_bits']}", (x, r["mean_abs_error"]), fontsize=7,
                               textcoords="offset points", xytext=(3, 3))
        third.set_xlabel(f"latency: total cycles ({unit})")
        third.set_ylabel("output error against the 8-bit model (int8 steps)")
        third.set_title("cycles × output error")
    for ax in axes:
        ax.set_xlim(left=0, right=max(cycles) * 1.05 or 1)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=9, loc="best", framealpha=0.9)
        ax.grid(alpha=0.3)
    what = "latency, energy, area and output error" if error else "latency, energy and area"
    fig.suptitle(f"{rows[0]['model']}: Pareto front over {what}")
    return fig
