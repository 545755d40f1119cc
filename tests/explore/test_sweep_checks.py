"""Sweeps are checked before any point runs, and their text output never lets a model or an error
message act on the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from mote.errors import MoteError
from mote.explore import report
from mote.explore.sweep import check_sweep


def test_known_keys_and_values_pass() -> None:
    check_sweep("dla", {"pes": ["64", "128"], "sram": ["512KiB", "1MiB"], "mode": ["input", "output"]})


@pytest.mark.parametrize("sweep, words", [
    ({"bogus": ["1"]}, ["bogus", "pes"]),
    ({"pes": ["sixty"]}, ["pes", "sixty"]),
    ({"pes": ["0"]}, ["pes"]),
    ({"timed": ["maybe"]}, ["timed", "maybe"]),
])
def test_bad_keys_and_values_are_refused(sweep: dict[str, list[str]], words: list[str]) -> None:
    with pytest.raises(MoteError) as error:
        check_sweep("dla", sweep)
    for word in words:
        assert word in str(error.value)


def test_settings_in_accel_and_sweep_combine_but_never_twice() -> None:
    from mote.explore.sweep import spec

    check_sweep("dla:mode=input", {"pes": ["64"]})
    assert spec("dla:mode=input", {"pes": "64"}) == "dla:mode=input,pes=64"
    assert spec("dla", {"pes": "64"}) == "dla:pes=64" and spec("pkg.npu:Npu", {}) == "pkg.npu:Npu"
    with pytest.raises(MoteError, match="also set in --accel"):
        check_sweep("dla:pes=64", {"pes": ["128"]})


def test_unknown_accelerator_is_refused_before_sweeping() -> None:
    with pytest.raises(MoteError, match="unknown accelerator"):
        check_sweep("nope", {"pes": ["64"]})


def test_show_escapes_model_names_and_failure_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    console = Console(record=True, width=300)
    monkeypatch.setattr(report, "console", lambda: console)
    rows = [{"model": "m[/]", "pes": "64", "status": "layer '\x1b[2J[/]' does not fit", "cycles": None}]
    report.show(rows, [], 0.1, ["pes"])
    text = console.export_text()
    assert "m[/]" in text and "\\x1b[2J[/]" in text and "\x1b" not in text


def test_write_replaces_results_and_leaves_no_temporaries(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("old")
    (tmp_path / "notes.txt").write_text("mine")
    report.write([{"model": "m", "status": "ok", "cycles": 5}], [], 1.0, tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["results"][0]["cycles"] == 5
    assert (tmp_path / "results.csv").read_text().splitlines() == ["model,status,cycles", "m,ok,5"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "results.csv", "results.json"]
