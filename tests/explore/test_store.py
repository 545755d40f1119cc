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
        first, _ = sweep([MODEL], "dla", {"pes": ["16", "32"]}, workers=1, progress=False, store=store, cpu=False)
        counted["points"].clear()
        # a new key: its default value (512KiB) and the same size written otherwise are the points already known
        rows, _ = sweep([MODEL], "dla", {"pes": ["16", "32", "128"], "sram": ["512KiB", "524288", "64KiB"]},
                        workers=1, progress=False, store=store, cpu=False)
    assert sorted((p["pes"], p["sram"]) for p in counted["points"]) == sorted(
        [("128", "512KiB"), *((p, "64KiB") for p in ("16", "32", "128"))])
    assert [{k: v for k, v in r.items() if k != "sram"} for r in (rows[0], rows[3])] == first
    assert rows[0]["sram"] == rows[3]["sram"] == 512 << 10 and list(rows[0])[:3] == ["model", "pes", "sram"]
    assert rows[1] == rows[0]  # 524288 bytes is 512KiB
    counted["points"].clear()
    with Store(tmp_path / "r.sqlite") as store:
        more, _ = sweep([MODEL], "dla", {"pes": ["16", "32", "128", "8"], "sram": ["512KiB", "524288", "64KiB"]},
                        workers=1, progress=False, store=store, cpu=False)
    assert counted["points"] == [{"pes": "8", "sram": "512KiB"}, {"pes": "8", "sram": "64KiB"}]
    assert more[:9] == rows


def test_a_fixed_setting_is_part_of_the_key(tmp_path: Path, counted: dict[str, list[Any]]) -> None:
    with Store(tmp_path / "r.sqlite") as store:
        sweep([MODEL], "dla", {"pes": ["16"]}, workers=1, progress=False, store=store, cpu=False)
        sweep([MODEL], "dla:mode=input", {"pes": ["16"]}, workers=1, progress=False, store=store, cpu=False)
        sweep([MODEL], "dla:mode=output", {"pes": ["16"]}, workers=1, progress=False, store=store, cpu=False)
    assert len(counted["points"]) == 2  # mode=output is the default: the first point again


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


def test_an_interrupted_sweep_resumes_from_what_it_stored(tmp_path: Path, counted: dict[str, list[Any]],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_module, "STORE_EVERY", 2)
    evaluate = sweep_module.evaluate

    def stopping(*task: Any) -> dict[str, Any]:
        if len(counted["points"]) == 4:
            raise KeyboardInterrupt
        return evaluate(*task)

    monkeypatch.setattr(sweep_module, "evaluate", stopping)
    space = {"pes": ["4", "8", "16", "32", "64"]}
    with Store(tmp_path / "r.sqlite") as store, pytest.raises(KeyboardInterrupt):
        sweep([MODEL], "dla", space, workers=1, progress=False, store=store, cpu=False)
    assert len(counted["points"]) == 4  # the fifth was interrupted; the first two chunks were stored
    counted["points"].clear()
    monkeypatch.setattr(sweep_module, "evaluate", evaluate)
    with Store(tmp_path / "r.sqlite") as store:
        rows, _ = sweep([MODEL], "dla", space, workers=1, progress=False, store=store, cpu=False)
    assert [p["pes"] for p in counted["points"]] == ["64"] and [r["pes"] for r in rows] == [4, 8, 16, 32, 64]
