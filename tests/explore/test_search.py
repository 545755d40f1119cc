"""`--search nsga2`: with a fixed seed the search is deterministic, stays within the swept values, marks
its rows, and goes through the store like the grid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mote.explore.search import Search, objectives, run_search
from mote.explore.store import Store
from mote.explore.sweep import sweep

MODEL = Path(__file__).resolve().parents[2] / "models" / "mlperf-tiny" / "ad01_int8.tflite"
SPACE = {"pes": ["4", "8", "16", "32", "64", "128"], "sram": ["32KiB", "64KiB", "128KiB", "512KiB"],
         "mode": ["input", "output"], "dma_bytes_per_cycle": ["2", "4", "8", "16"]}


def fake_evaluate(tasks: list[tuple[str, str, dict[str, str]]], found: str) -> list[dict[str, Any]]:
    """A made-up trade-off: more PEs are faster and larger."""
    rows = []
    for model, _, point in tasks:
        pes, dma = int(point["pes"]), int(point["dma_bytes_per_cycle"])
        rows.append({"model": model, **point, "status": "ok", "found": found, "total_cycles": 1e6 / pes + 1e4 / dma,
                     "energy_uj": 10 + pes / 8 + dma, "area_mm2": pes * 0.01 + int(point["sram"][:-3]) * 0.006})
    return rows


def test_the_search_is_deterministic_and_within_the_space() -> None:
    search = Search(trials=40, seed=3, population=8)
    first = run_search(search, ["m"], "dla", SPACE, fake_evaluate)
    again = run_search(search, ["m"], "dla", SPACE, fake_evaluate)
    assert first == again
    assert 1 < len(first) <= 40  # distinct points
    for row in first:
        assert all(row[k] in values for k, values in SPACE.items())
        assert row["found"] == "nsga2"
    other = run_search(Search(trials=40, seed=4, population=8), ["m"], "dla", SPACE, fake_evaluate)
    assert other != first


def test_failed_points_do_not_stop_the_search() -> None:
    def failing(tasks: list[tuple[str, str, dict[str, str]]], found: str) -> list[dict[str, Any]]:
        return [dict(r, status="too big") if r["pes"] == "128" else r for r in fake_evaluate(tasks, found)]

    rows = run_search(Search(trials=16, seed=0, population=4), ["m"], "dla", SPACE, failing)
    assert rows and objectives([{"status": "too big"}]) is None


def test_a_search_on_the_cost_model_through_the_store(tmp_path: Path) -> None:
    search = Search(trials=12, seed=1, population=4)
    with Store(tmp_path / "r.sqlite") as store:
        rows, _ = sweep([MODEL], "dla", SPACE, workers=1, progress=False, store=store, search=search, cpu=False)
        added = store.added["points"]
        again, _ = sweep([MODEL], "dla", SPACE, workers=1, progress=False, store=store, search=search, cpu=False)
        assert store.added["points"] == added  # the same seed: the same points, all from the store
    assert again == rows and added == len(rows)
    assert all(r["found"] == "nsga2" and r["status"] == "ok" and r["area_mm2"] > 0 for r in rows)
    for r in rows:
        assert str(r["pes"]) in SPACE["pes"] and r["mode"] in SPACE["mode"]


def test_search_from_the_command_line(tmp_path: Path) -> None:
    from test_cli import mote

    proc = mote("explore", MODEL, "--accel", "dla", "--sweep", "pes", "sram", "--search", "nsga2", "--trials", "6",
                "--seed", "2", "--out", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    import json

    rows = json.loads(proc.stdout)
    assert rows and all(r["found"] == "nsga2" for r in rows) and any(r["pareto"] for r in rows)
    assert (tmp_path / "results.sqlite").is_file() and (tmp_path / "ad01_int8_pareto.png").is_file()


@pytest.mark.parametrize("trials", [1])
def test_fewer_trials_than_a_generation(trials: int) -> None:
    rows = run_search(Search(trials=trials, seed=0, population=8), ["m"], "dla", SPACE, fake_evaluate)
    assert len(rows) == 1


def test_search_and_store_on_a_dask_cluster_match_local_cores(tmp_path: Path) -> None:
    from distributed import LocalCluster

    search = Search(trials=8, seed=5, population=4)
    local, _ = sweep([MODEL], "dla", SPACE, workers=1, progress=False, search=search, cpu=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Store(tmp_path / "r.sqlite") as store:
        remote, _ = sweep([MODEL], "dla", SPACE, progress=False, dask=cluster.scheduler_address, search=search,
                          cpu=False, store=store)
        assert store.added["points"] == len(remote)
    assert remote == local
