"""PNG plots of an exploration: stacked cycle bars by subgraph type (seed 004, Figure 4) and cycles
against SRAM size per PE count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.accel.dla.cost import CATEGORIES
from mote.config import parse_size
from mote.outputs import atomic_path, safe_file_name


def _label(row: dict[str, Any], keys: list[str]) -> str:
    return " ".join(str(row[k]) for k in keys if k in row)


def draw(rows: list[dict[str, Any]], keys: list[str], out: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    ok = [r for r in rows if r.get("status") == "ok"]
    for model in dict.fromkeys(r["model"] for r in ok):
        mine = [r for r in ok if r["model"] == model]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(mine)), 4.5))
        bottom = [0.0] * len(mine)
        for c in CATEGORIES:
            values = [float(r.get(c, 0)) for r in mine]
            if any(values):
                ax.bar(range(len(mine)), values, bottom=bottom, label=c)
                bottom = [b + v for b, v in zip(bottom, values)]
        ax.set_xticks(range(len(mine)), [_label(r, keys) for r in mine], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("cycles")
        ax.set_title(f"{model}: cycles by subgraph type")
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = out / f"{safe_file_name(model)}_breakdown.png"
        with atomic_path(path, "--out") as tmp:
            fig.savefig(tmp, dpi=110, format="png")
        plt.close(fig)
        written.append(path)
        if "sram" in keys:
            written.append(_versus_sram(plt, mine, keys, model, out))
    return written


def _versus_sram(plt: Any, rows: list[dict[str, Any]], keys: list[str], model: str, out: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4))
    others = [k for k in keys if k != "sram"]
    series: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        series.setdefault(_label(r, others) or "dla", []).append((parse_size(str(r["sram"])), float(r["cycles"])))
    for name, points in series.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("SRAM bytes")
    ax.set_ylabel("cycles")
    ax.set_title(f"{model}: cycles against SRAM")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / f"{safe_file_name(model)}_sram.png"
    with atomic_path(path, "--out") as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return path
