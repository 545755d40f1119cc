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
