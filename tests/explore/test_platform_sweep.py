"""`mote explore --platform`: the keys cores, l1 and dma_bw vary the platform each point's CPU work runs on
(on the virtual platform), rows carry the platform's columns and a speed-up over their baseline, the plots
show speed-up and energy against the cores and cycles and energy against the L1 size, and bad keys are
refused in one line before any work."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from test_cli import assert_one_line_error, mote

from mote.explore.evaluate import evaluate
from mote.explore.platform_space import columns, derive
from mote.explore.sweep import add_speedups
from mote.pipeline import default_model
from mote.sim.platforms import builtin


def test_a_sweep_over_cores_and_l1(tmp_path: Path) -> None:
    """The digits CNN on cluster8 without an accelerator: more cores, fewer cycles (its layers split); on one
    core, an L1 of 1 KiB splits a layer into tiles (more DMA jobs and halo rows) where 64 KiB holds it whole, and
    on four cores it leaves some layers fewer cores."""
    proc = mote("explore", default_model(), "--platform", "cluster8", "--sweep", "cores=1,4", "l1=1KiB,64KiB",
                "--out", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(r["cores"], r["l1"]) for r in rows] == [(1, 1024), (1, 65536), (4, 1024), (4, 65536)]
    assert all(r["status"] == "ok" and r["platform"] == "cluster8" and r["dma_bw"] == 8 for r in rows)
    assert all(r["accel_cycles"] == 0 and r["total_cycles"] == r["cpu_cycles"] > 0 for r in rows)
    by = {(r["cores"], r["l1"]): r for r in rows}
    for l1 in (1024, 65536):
        one, four = by[1, l1], by[4, l1]
        assert four["total_cycles"] < one["total_cycles"]
        assert one["speedup"] == 1.0 and four["speedup"] == round(one["total_cycles"] / four["total_cycles"], 4)
        # in 1 KiB a tile holds too little for four cores' shares: such layers run on fewer (mote.codegen.compile)
        assert four["speedup"] > (1.5 if l1 == 65536 else 1.0) and four["speedup_vs"] == "cores=1"
        assert 0 < one["energy_uj"] < four["energy_uj"]  # the same work plus the waiting cores' barriers
    assert by[1, 1024]["total_cycles"] > by[1, 65536]["total_cycles"]
    with open(tmp_path / "results.csv", newline="") as f:
        header = next(csv.reader(f))
    assert {"cores", "l1", "dma_bw", "total_cycles", "speedup", "speedup_vs", "energy_uj"} <= set(header)
    assert json.loads((tmp_path / "results.json").read_text())["results"] == rows
    for name in ("cores", "cores_speedup", "cores_energy", "l1", "l1_energy"):
        assert (tmp_path / f"digits_cnn_{name}.png").stat().st_size > 1000, name


def test_a_slower_dma_costs_cycles(tmp_path: Path) -> None:
    proc = mote("explore", default_model(), "--platform", "cluster8", "--accel", "none", "--sweep", "cores=1",
                "l1=1KiB", "dma_bw=1,8", "--out", tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    slow, fast = json.loads(proc.stdout)
    assert (slow["dma_bw"], fast["dma_bw"]) == (1, 8)
    assert slow["total_cycles"] > fast["total_cycles"]
    assert fast["speedup_vs"] == "first point" and fast["speedup"] > 1.0 == slow["speedup"]


def test_bad_platform_keys_are_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "results"
    model = default_model()
    cases = [(["--sweep", "l1=32KiB"], ("--sweep l1", "no L1", "cluster8")),  # mcu: no L1
             (["--platform", "cluster8", "--sweep", "cores=0,2"], ("--sweep cores=0", "1 to 64")),
             (["--platform", "cluster8", "--sweep", "l1=32XB"], ("--sweep l1=32XB", "not a size")),
             (["--platform", "cluster8", "--sweep", "dma_bw=fast"], ("--sweep dma_bw=fast", "whole number")),
             (["--platform", "cluster8", "--sweep", "cores"], ("--sweep cores", "cores=1,2,4,8")),
             (["--platform", "cluster8", "--sweep", "pes=64"], ("--sweep pes", "not a platform key", "--accel")),
             (["--platform", "nosuch", "--sweep", "cores=1"], ("--platform nosuch",)),
             (["--platform", "cluster8", "--accel", "none", "--verify", "1", "--sweep", "cores=1"], ("--verify",)),
             (["--accel", "qvanilla", "--sweep", "cycles_per_mac=1", "l2=1"],
              ("--sweep l2", "qvanilla", "cores, l1, dma_bw"))]
    for args, words in cases:
        assert_one_line_error(mote("explore", model, *args, "--out", out), *words)
        assert not out.exists(), args


def test_points_derive_their_platform_and_their_cpu_work_key() -> None:
    base = builtin("cluster8")
    p = derive(base, {"cores": "2", "l1": "16KiB", "dma_bw": "4"})
    assert columns(p) == {"cores": 2, "l1": 16 << 10, "dma_bw": 4}
    assert columns(base) == {"cores": 8, "l1": 64 << 10, "dma_bw": 8}  # the base is left as it was
    assert p.memory("ram") == base.memory("ram") and p.l1_dma().channels == base.l1_dma().channels
    model = str(default_model())
    keys = {evaluate(model, None, {}, derive(base, {"l1": size}))["cpu_work"] for size in ("16KiB", "32KiB")}
    keys |= {evaluate(model, None, {}, derive(base, {"dma_bw": "4"}))["cpu_work"]}
    assert len(keys) == 3  # every platform parameter is part of the CPU workload's key
    again = evaluate(model, None, {}, derive(base, {"l1": "16KiB"}))["cpu_work"]
    assert again in keys


def test_speedup_baselines() -> None:
    rows = [{"model": "m", "l1": a, "cores": c, "total_cycles": t}
            for a, c, t in [(1, 2, 500), (1, 4, 250), (2, 2, 400), (2, 4, 100)]]
    add_speedups(rows, ["l1", "cores"])
    assert [r["speedup"] for r in rows] == [1.0, 2.0, 1.0, 4.0]  # over the first swept core count, per l1
    assert {r["speedup_vs"] for r in rows} == {"cores=2"}
    rows = [{"model": "m", "l1": a, "total_cycles": t} for a, t in [(1, 300), (2, 100)]] + [
        {"model": "m", "l1": 3, "total_cycles": None, "status": "failed"}]
    add_speedups(rows, ["l1"])
    assert [r["speedup"] for r in rows] == [1.0, 3.0, None]
    assert rows[0]["speedup_vs"] == "first point"
