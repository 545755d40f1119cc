"""The Pareto plot: written per model, labelled axes from zero, a legend naming the front."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.explore import pareto_plot
from mote.explore.pareto import mark


def rows() -> list[dict[str, Any]]:
    out = []
    for model in ("a", "b"):
        for pes in (8, 16, 32, 64):
            for kib in (64, 256):
                out.append({"model": model, "status": "ok", "pes": pes, "total_cycles": 4e6 / pes + 1e5,
                            "energy_uj": 50 + pes / 4 + kib / 64, "area_mm2": pes * 4e-4 + kib * 6e-3})
    out.append({"model": "a", "status": "failed"})
    mark(out)
    return out


def test_one_png_per_model(tmp_path: Path) -> None:
    paths = pareto_plot.draw(rows(), tmp_path)
    assert [p.name for p in paths] == ["a_pareto.png", "b_pareto.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


def test_axes_start_at_zero_and_are_labelled() -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = pareto_plot.figure(plt, [r for r in rows() if r.get("model") == "a" and r["status"] == "ok"])
    try:
        panels = [ax for ax in fig.axes if ax.get_legend() is not None]
        assert len(panels) == 2
        for ax in panels:
            assert ax.get_xlim()[0] == 0 and ax.get_ylim()[0] == 0
            assert "cycles" in ax.get_xlabel() and ax.get_ylabel()
            labels = [t.get_text() for t in ax.get_legend().get_texts()]
            assert any(label.startswith("Pareto front") for label in labels)
        colorbar = [ax for ax in fig.axes if ax.get_legend() is None]
        assert colorbar and "area" in colorbar[0].get_ylabel()
    finally:
        plt.close(fig)
