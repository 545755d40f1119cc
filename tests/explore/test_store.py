"""The results store: a re-run computes nothing (no cost-model evaluation, no VP run), an extended sweep
computes only its new points, and the rows are the same as without a store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mote.explore import sweep as sweep_module
from mote.explore.store import Store
from mote.explore.sweep import sweep

MODEL = Path(__file__).resolve().parents[2] / "models" / "mlperf-tiny" / "ad01_int8.tflite"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Every cost-model evaluation and every VP run the sweep makes (in this process: workers=1)."""
    calls: dict[str, list[Any]] = {"points": [], "cpu": []}
    evaluate, cpu = sweep_module.evaluate, sweep_module.cpu_cycles_task

    def counting_evaluate(*task: Any) -> dict[str, Any]:
        calls["points"].append(task[2])
        return evaluate(*task)

    def counting_cpu(task: tuple[str, str]) -> Any:
        calls["cpu"].append(task)
        return cpu(task)

    monkeypatch.setattr(sweep_module, "evaluate", counting_evaluate)
    monkeypatch.setattr(sweep_module, "cpu_cycles_task", counting_cpu)
    return calls


def test_a_rerun_computes_nothing(tmp_path: Path, counted: dict[str, list[Any]]) -> None:
    space = {"pes": ["16", "64"]}
    with Store(tmp_path / "r.sqlite") as store:
        first, _ = sweep([MODEL], "dla", space, workers=1, progress=False, store=store)
        assert len(counted["points"]) == 2 and len(counted["cpu"]) >= 1
        assert store.added == {"points": 2, "cpu": len(counted["cpu"])}
    counted["points"].clear()
    counted["cpu"].clear()
    with Store(tmp_path / "r.sqlite") as store:  # reopened: what the file holds
        again, _ = sweep([MODEL], "dla", space, workers=1, progress=False, store=store)
        assert store.added == {"points": 0, "cpu": 0}
    assert counted == {"points": [], "cpu": []}
    assert again == first
    assert all(r["status"] == "ok" and r["total_cycles"] and r["energy_uj"] and r["area_mm2"] for r in again)


def test_an_extended_sweep_computes_only_the_new_points(tmp_path: Path, counted: dict[str, list[Any]]) -> None:
    with Store(tmp_path / "r.sqlite") as store:
        sweep([MODEL], "dla", {"pes": ["16", "32"]}, workers=1, progress=False, store=store, cpu=False)
        counted["points"].clear()
        rows, _ = sweep([MODEL], "dla", {"pes": ["16", "32", "128"], "sram": ["512KiB", "64KiB"]}, workers=1,
                        progress=False, store=store, cpu=False)
    # pes=16/32 with sram=512KiB (the default: another key, not the same point) are new too: only the
    # settings given make the key, so the stored {pes=16} is not {pes=16, sram=512KiB}
    assert sorted((p["pes"], p["sram"]) for p in counted["points"]) == sorted(
        (p, s) for p in ("16", "32", "128") for s in ("512KiB", "64KiB"))
    counted["points"].clear()
    with Store(tmp_path / "r.sqlite") as store:
        more, _ = sweep([MODEL], "dla", {"pes": ["16", "32", "128", "8"], "sram": ["512KiB", "64KiB"]},
                        workers=1, progress=False, store=store, cpu=False)
    assert counted["points"] == [{"pes": "8", "sram": "512KiB"}, {"pes": "8", "sram": "64KiB"}]
    assert more[:6] == rows


def test_without_a_store_the_rows_are_the_same(tmp_path: Path) -> None:
    space = {"pes": ["16", "64"]}
    plain, _ = sweep([MODEL], "dla", space, workers=1, progress=False, cpu=False)
    with Store(tmp_path / "r.sqlite") as store:
        sweep([MODEL], "dla", space, workers=1, progress=False, store=store, cpu=False)
        stored, _ = sweep([MODEL], "dla", space, workers=1, progress=False, store=store, cpu=False)
    assert stored == plain


def test_a_file_that_is_not_a_store_is_one_line(tmp_path: Path) -> None:
    from mote.errors import MoteError

    bad = tmp_path / "not.sqlite"
    bad.write_text("not a database at all, just text" * 10)
    with pytest.raises(MoteError, match="--store .*not.sqlite"):
        Store(bad)
