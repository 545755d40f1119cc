"""Bit width as a sweep parameter of `mote explore`: rows with weight bytes, SRAM, energy and accuracy side
by side, the store keyed by the width (a re-run resumes), the output error on the Pareto front and plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mote.explore import explore
from mote.explore import search as search_module
from mote.explore.pareto import ACCURACY, OBJECTIVES, mark, objectives
from mote.explore.search import Search, run_search
from mote.explore.search import objectives as search_objectives
from mote.explore.store import Store
from mote.explore.sweep import sweep

MODELS = Path(__file__).resolve().parents[2] / "models" / "mlperf-tiny"
KWS, AD = MODELS / "kws_ref_model.tflite", MODELS / "ad01_int8.tflite"


def test_rows_carry_bytes_sram_energy_and_accuracy_per_width() -> None:
    rows, _ = sweep([KWS], "dla", {"weight_bits": ["8", "4", "2"]}, workers=1, progress=False, cpu=False)
    assert [r["weight_bits"] for r in rows] == [8, 4, 2] and all(r["status"] == "ok" for r in rows)
    eight, four, two = rows
    assert eight["weight_bytes"] > four["weight_bytes"] > two["weight_bytes"]
    assert eight["sram_read_bytes"] > four["sram_read_bytes"] > two["sram_read_bytes"]
    assert eight["accel_energy_uj"] > four["accel_energy_uj"] > two["accel_energy_uj"]
    assert eight["mult_work"] == eight["macs"] and four["mult_work"] < eight["mult_work"]
    assert eight["top1_agreement"] == 1.0 and eight["mean_abs_error"] == 0.0
    assert 0.0 <= two["top1_agreement"] <= 1.0 and two["mean_abs_error"] > 0.0
    assert all(r["sram_used_bytes"] > 0 for r in rows)


def test_an_autoencoder_has_no_top1_and_qvanilla_sweeps_too() -> None:
    rows, _ = sweep([AD], "dla", {"weight_bits": ["8", "4"]}, workers=1, progress=False, cpu=False)
    assert all(r["top1_agreement"] is None for r in rows) and rows[1]["mean_abs_error"] > 0
    rows, _ = sweep([KWS], "qvanilla", {"weight_bits": ["8", "2"]}, workers=1, progress=False, cpu=False)
    assert rows[0]["accel_cycles"] > rows[1]["accel_cycles"] and rows[0]["weight_bytes"] > rows[1]["weight_bytes"]


def test_the_store_keys_hold_the_width_and_a_rerun_resumes(tmp_path: Path) -> None:
    space = {"weight_bits": ["8", "4"], "pes": ["16"]}
    with Store(tmp_path / "r.sqlite") as store:
        first, _ = sweep([AD], "dla", space, workers=1, progress=False, store=store, cpu=False)
        assert store.added["points"] == 2 and len(store) == 2
    with Store(tmp_path / "r.sqlite") as store:
        again, _ = sweep([AD], "dla", {**space, "weight_bits": ["8", "4", "2"]}, workers=1, progress=False,
                         store=store, cpu=False)
        assert store.reused["points"] == 2 and store.added["points"] == 1 and len(store) == 3
    assert again[:2] == first and again[2]["weight_bits"] == 2


def test_the_output_error_is_an_objective() -> None:
    rows = [{"model": "m", "status": "ok", "total_cycles": 10, "energy_uj": 1.0, "area_mm2": 1.0},
            {"model": "m", "status": "ok", "total_cycles": 20, "energy_uj": 2.0, "area_mm2": 1.0}]
    assert objectives(rows) == OBJECTIVES and mark(rows) == [0]
    rows[0][ACCURACY], rows[1][ACCURACY] = 5.0, 0.0  # faster and cheaper, but further from the 8-bit model
    assert objectives(rows) == (*OBJECTIVES, ACCURACY) and mark(rows) == [0, 1]


def test_explore_writes_the_width_plots_and_columns(tmp_path: Path) -> None:
    rows = explore([AD], "dla", {"weight_bits": ["8", "4"]}, tmp_path / "out", show=False, workers=1)
    assert all(r["status"] == "ok" and r["energy_uj"] and r["total_cycles"] for r in rows)
    files = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"ad01_int8_weight_bits.png", "ad01_int8_weight_bits_weight_bytes.png",
            "ad01_int8_weight_bits_mean_abs_error.png", "ad01_int8_pareto.png"} <= files
    header = (tmp_path / "out" / "results.csv").read_text().splitlines()[0].split(",")
    assert {"weight_bits", "weight_bytes", "sram_used_bytes", "energy_uj", "top1_agreement",
            "mean_abs_error"} <= set(header)
    stored = json.loads((tmp_path / "out" / "results.json").read_text())["results"]
    assert [r["weight_bits"] for r in stored] == [8, 4]


def test_the_search_weighs_the_output_error_when_the_width_is_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A made-up trade-off where narrower weights are faster and cheaper but worse: the search is told the
    error as a fourth objective (only when the width is swept), and every width is on the front."""
    told: list[int] = []
    real = search_module.objectives

    def recording(rows: list[dict[str, Any]], accuracy: bool = False) -> list[float] | None:
        values = real(rows, accuracy)
        told.append(len(values or []))
        return values

    monkeypatch.setattr(search_module, "objectives", recording)

    def evaluate(tasks: list[tuple[str, str, dict[str, str]]], found: str) -> list[dict[str, Any]]:
        rows = []
        for model, _, point in tasks:
            bits, pes = int(point["weight_bits"]), int(point["pes"])
            rows.append({"model": model, **point, "status": "ok", "found": found, "area_mm2": pes * 0.01,
                         "total_cycles": 1e5 * bits / pes, "energy_uj": bits + pes / 16, "mean_abs_error": 8 - bits})
        return rows

    space = {"weight_bits": ["8", "4", "2"], "pes": ["8", "16", "32", "64"]}
    rows = run_search(Search(trials=24, seed=2, population=8), ["m"], "dla", space, evaluate)
    assert search_objectives(rows[:1], accuracy=True) == [*search_objectives(rows[:1]), rows[0]["mean_abs_error"]]
    assert search_objectives([{**rows[0], "mean_abs_error": None}], accuracy=True) is None
    front = [rows[i] for i in mark(rows)]
    assert {r["weight_bits"] for r in front} == {"8", "4", "2"} and set(told) == {4}
    told.clear()
    run_search(Search(trials=8, seed=2, population=8), ["m"], "dla", {"pes": space["pes"]},
               lambda tasks, found: evaluate([(m, a, {**p, "weight_bits": "8"}) for m, a, p in tasks], found))
    assert set(told) == {3}
