"""`mote explore` from the command line: a key alone sweeps the accelerator's declared values, the
JSON keeps their types, and a key without declared values is a one-line error before any work."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import assert_one_line_error, mote

from mote.pipeline import default_model


def test_a_key_alone_sweeps_the_declared_values(tmp_path: Path) -> None:
    proc = mote("explore", default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac", "--out", tmp_path,
                "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["cycles_per_mac"] for r in rows] == [1, 2, 4]
    assert all(r["status"] == "ok" and r["total_cycles"] == r["accel_cycles"] + r["cpu_cycles"] for r in rows)
    assert [r["accel_cycles"] for r in rows] == [rows[0]["macs"] * n for n in (1, 2, 4)]


def test_a_key_without_declared_values_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = mote("explore", default_model(), "--accel", "qvanilla", "--sweep", "timed", "--out", out)
    assert_one_line_error(proc, "--sweep timed", "declares no values", "timed=0")
    assert not out.exists()


def test_energy_per_point_and_the_objective(tmp_path: Path) -> None:
    """Each point's energy is the CPU's run on the mcu platform plus the accelerator's MACs at the
    documented energy per MAC; --objective orders the points best first."""
    from mote.sim.platforms import AcceleratorSlot

    proc = mote("explore", default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac=4,1,2", "--out",
                tmp_path, "--objective", "cycles", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["cycles_per_mac"] for r in rows] == [1, 2, 4]  # best first: fewest total cycles
    mac_pj = AcceleratorSlot("accel", ()).mac_pj
    for r in rows:
        assert r["accel_energy_uj"] == round(r["macs"] * mac_pj / 1e6, 6) and r["cpu_energy_uj"] > 0
        assert abs(r["energy_uj"] - (r["cpu_energy_uj"] + r["accel_energy_uj"])) < 2e-6
    # the same CPU work at every point (only the accelerator's speed changes): the same energy
    assert len({r["energy_uj"] for r in rows}) == 1
    proc = mote("explore", default_model(), "--accel", "qvanilla", "--sweep", "cycles_per_mac=1", "--out",
                tmp_path, "--objective", "power")
    assert_one_line_error(proc, "--objective")


def test_rows_by_objective() -> None:
    from mote.explore.sweep import by_objective

    rows = [{"p": 0, "energy_uj": 3.0, "total_cycles": 1}, {"p": 1, "status": "failed"},
            {"p": 2, "energy_uj": 1.0, "total_cycles": 9}, {"p": 3, "energy_uj": 2.0, "total_cycles": 5}]
    assert [r["p"] for r in by_objective(rows, "energy")] == [2, 3, 0, 1]
    assert [r["p"] for r in by_objective(rows, "cycles")] == [0, 3, 2, 1]
