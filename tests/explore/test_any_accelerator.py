"""`mote explore` for any accelerator: QVanilla, the DLA and a user's class defined here, each with
its own settings and cost categories; end-to-end cycles (the accelerator's by its cost model, the
CPU's from the virtual platform); typed JSON; `--verify` on the virtual platform."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import MLPERF_TINY, REPO

from mote.accel.qvanilla import QVanilla
from mote.accel.settings import setting
from mote.explore import explore
from mote.explore.evaluate import CPU_WORK, evaluate
from mote.explore.sweep import sweep
from mote.ints import ceil_div
from mote.pipeline import default_model

DIGITS = default_model()


@dataclass(frozen=True)
class LanesConfig:
    lanes: int = setting(4, doc="multiply-accumulates per cycle", minimum=1, sweep=(1, 4, 16))
    setup: int = setting(100, doc="cycles to start one job", minimum=0)
    timed: bool = setting(False, doc="add the cost model's cycles to the virtual platform's run")


class Lanes(QVanilla):
    """A user's accelerator: QVanilla's datapath with its own settings and two cost categories."""

    name = "lanes"
    Config = LanesConfig
    cost_categories = ("setup", "mac")

    def cost(self, registers: dict[str, int]) -> int:
        return sum(self.cost_breakdown(registers).values())

    def cost_breakdown(self, registers: dict[str, int]) -> dict[str, int]:
        r = registers
        macs = (r["ih"] - r["kh"] + 1) * (r["iw"] - r["kw"] + 1) * r["oc"] * r["kh"] * r["kw"] * r["ic"]
        return {"setup": self.config.setup, "mac": ceil_div(macs, self.config.lanes)}


def test_qvanilla_reports_cycles_and_macs_end_to_end() -> None:
    rows, _ = sweep([DIGITS], "qvanilla", {"cycles_per_mac": ["1", "2"]}, workers=1, progress=False)
    one, two = rows
    assert one["status"] == two["status"] == "ok"
    assert one["macs"] == two["macs"] > 0 and one["jobs"] == 2
    assert one["accel_cycles"] == one["compute"] == one["macs"] and two["accel_cycles"] == 2 * one["macs"]
    assert one["cpu_cycles"] == two["cpu_cycles"] > 0  # the CPU does the same work at both settings
    for row in rows:
        assert row["total_cycles"] == row["accel_cycles"] + row["cpu_cycles"]
        assert CPU_WORK not in row and "utilization" not in row and "CONV" not in row


def test_timed_mode_leaves_the_cpu_share_alone() -> None:
    """In timed mode the virtual platform adds the accelerator's cycles to the run; the CPU's share must
    not count them again beside the cost model's."""
    rows, _ = sweep([DIGITS], "qvanilla", {"timed": ["0", "1"]}, workers=1, progress=False)
    untimed, timed = rows
    assert untimed["status"] == timed["status"] == "ok"
    assert untimed["cpu_cycles"] == timed["cpu_cycles"] > 0
    assert untimed["total_cycles"] == timed["total_cycles"]


def test_a_user_class_with_its_own_settings_and_categories(tmp_path: Path) -> None:
    accel = f"{__name__}:Lanes:setup=7"
    rows = explore([DIGITS], accel, {"lanes": []}, tmp_path, workers=1, show=False)
    assert [r["lanes"] for r in rows] == [1, 4, 16]  # the declared sweep values, typed
    for row in rows:
        assert row["status"] == "ok" and row["setup"] == 7 * row["jobs"]
        assert row["mac"] == sum(ceil_div(m, row["lanes"]) for m in _job_macs()) > 0
        assert row["total_cycles"] == row["setup"] + row["mac"] + row["cpu_cycles"]
    assert rows[0]["accel_cycles"] > rows[1]["accel_cycles"] > rows[2]["accel_cycles"]
    assert {p.name for p in tmp_path.iterdir()} >= {"results.json", "digits_cnn_breakdown.png", "digits_cnn_lanes.png"}


def _job_macs() -> list[int]:
    """The MACs of each start of QVanilla's jobs on the digits CNN (its two convolutions, one start each)."""
    from mote.accel.loader import find_accelerator
    from mote.frontend import load
    from mote.passes.offload import offload
    graph = offload(load(DIGITS), find_accelerator("qvanilla"))
    return [n.attrs["job"].info["macs"] for n in graph.nodes if n.op == "accel"]


def test_json_values_keep_their_types(tmp_path: Path) -> None:
    explore([MLPERF_TINY / "ad01_int8.tflite"], "dla", {"pes": ["16", "64"], "sram": ["64KiB"], "timed": ["0"]},
            tmp_path, workers=1, show=False)
    rows = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [(r["pes"], r["sram"], r["timed"]) for r in rows] == [(16, 64 << 10, False), (64, 64 << 10, False)]
    for row in rows:
        assert row["status"] == "ok" and isinstance(row["utilization"], float)
        assert row["accel_cycles"] == sum(row[c] for c in ("CONV", "DEPTH", "REQUANT", "POOL", "ELTWISE", "DMA",
                                                           "CONTROL"))
        assert row["total_cycles"] == row["accel_cycles"] + row["cpu_cycles"]
    assert not (tmp_path / "ad01_int8_sram.png").exists()  # one SRAM size: nothing to plot against it
    assert (tmp_path / "ad01_int8_pes.png").is_file()


def test_points_with_the_same_cpu_work_share_one_key() -> None:
    model = str(MLPERF_TINY / "vww_96_int8.tflite")
    keys = {(d, p): evaluate(model, "dla", {"depthwise": d, "pes": p})[CPU_WORK]
            for d in ("none", "native") for p in ("16", "64")}
    assert keys["none", "16"] == keys["none", "64"] != keys["native", "16"] == keys["native", "64"]


def test_verify_runs_qvanilla_on_the_virtual_platform(tmp_path: Path) -> None:
    explore([DIGITS], "qvanilla", {"cycles_per_mac": ["3"]}, tmp_path, verify=1, workers=1, show=False)
    (check,) = json.loads((tmp_path / "results.json").read_text())["verify"]
    assert check["bit_exact"] and check["accel"].startswith("qvanilla:timed=True")
    assert check["vp_cycles"] == check["model_cycles"] > 0 and check["error_percent"] == 0.0


def test_explore_names_no_particular_accelerator() -> None:
    for path in (REPO / "mote" / "explore").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert not name.startswith(("mote.accel.dla", "mote.accel.qvanilla")), f"{path.name}: {name}"


@pytest.mark.parametrize("sweep_values, words", [({"setup": []}, ["setup", "declares no values"]),
                                                 ({"lanes": ["0"]}, ["lanes", "at least 1"])])
def test_a_user_class_sweep_is_checked_first(tmp_path: Path, sweep_values: dict[str, list[str]],
                                             words: list[str]) -> None:
    from mote.errors import MoteError
    with pytest.raises(MoteError) as error:
        explore([DIGITS], f"{__name__}:Lanes", sweep_values, tmp_path / "out", workers=1, show=False)
    assert all(w in str(error.value) for w in words) and not (tmp_path / "out").exists()
