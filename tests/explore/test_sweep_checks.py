"""Sweeps are checked before any point runs, their values keep their declared types, and their text
output never lets a model or an error message act on the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from mote.errors import MoteError
from mote.explore import report
from mote.explore.space import check_sweep, points, spec, typed, value_text


def test_known_keys_and_values_pass() -> None:
    sweep = {"pes": ["64", "128"], "sram": ["512KiB", "1MiB"], "mode": ["input", "output"]}
    assert check_sweep("dla", sweep) == sweep


@pytest.mark.parametrize("sweep, words", [
    ({"bogus": ["1"]}, ["bogus", "pes"]),
    ({"pes": ["sixty"]}, ["pes", "sixty"]),
    ({"pes": ["0"]}, ["pes"]),
    ({"pes": ["64K"]}, ["pes", "only for sizes"]),
    ({"timed": ["maybe"]}, ["timed", "maybe"]),
    ({"mode": ["sideways"]}, ["mode", "input, output"]),
])
def test_bad_keys_and_values_are_refused(sweep: dict[str, list[str]], words: list[str]) -> None:
    with pytest.raises(MoteError) as error:
        check_sweep("dla", sweep)
    assert "\n" not in str(error.value)
    for word in words:
        assert word in str(error.value)


def test_a_key_without_values_takes_the_declared_sweep() -> None:
    assert check_sweep("dla", {"mode": [], "pes": ["8"]}) == {"mode": ["input", "output"], "pes": ["8"]}
    assert check_sweep("dla", {"sram": []})["sram"] == [str(64 << 10), str(128 << 10), str(256 << 10),
                                                        str(512 << 10)]
    with pytest.raises(MoteError, match="declares no values to sweep it over"):
        check_sweep("dla", {"timed": []})


def test_values_keep_their_declared_types() -> None:
    values = typed("dla", {"pes": "64", "sram": "512KiB", "mode": "input", "timed": "1"})
    assert values == {"pes": 64, "sram": 512 << 10, "mode": "input", "timed": True}
    assert type(values["pes"]) is int and type(values["timed"]) is bool
    assert {k: value_text(v) for k, v in values.items()} == {"pes": "64", "sram": "524288", "mode": "input",
                                                             "timed": "1"}
    assert typed("qvanilla", {"cycles_per_mac": "3"}) == {"cycles_per_mac": 3}


def test_points_are_the_product_in_order() -> None:
    assert points({"a": ["1", "2"], "b": ["x"]}) == [{"a": "1", "b": "x"}, {"a": "2", "b": "x"}]


def test_settings_in_accel_and_sweep_combine_but_never_twice() -> None:
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
    rows = [{"model": "m[/]", "pes": 64, "status": "layer '\x1b[2J[/]' does not fit", "accel_cycles": None}]
    report.show(rows, [], 0.1, ["pes"])
    text = console.export_text()
    assert "m[/]" in text and "\\x1b[2J[/]" in text and "\x1b" not in text


def test_show_names_the_cycles_and_writes_sizes_with_units(monkeypatch: pytest.MonkeyPatch) -> None:
    console = Console(record=True, width=300)
    monkeypatch.setattr(report, "console", lambda: console)
    rows = [{"model": "m", "sram": 512 << 10, "status": "ok", "total_cycles": 1500, "accel_cycles": 1000,
             "cpu_cycles": 500, "macs": 7, "jobs": 1, "cpu_nodes": 2, "fast": 1000, "slow": 0}]
    report.show(rows, [], 0.1, ["sram"], ("fast", "slow"), {"sram"})
    header, row = _header_and_row(console.export_text())
    assert header.split() == ["model", "sram", "total_cycles", "accel_cycles", "cpu_cycles", "fast", "cpu_nodes"]
    assert row.split() == ["m", "512KiB", "1,500", "1,000", "500", "1,000", "2"]


def _header_and_row(text: str) -> tuple[str, str]:
    lines = [line.strip("│┃ ").replace("│", " ").replace("┃", " ") for line in text.splitlines()
             if line.startswith(("│", "┃"))]
    return lines[0], lines[1]


def test_size_text() -> None:
    assert [report.size_text(n) for n in (512 << 10, 1 << 20, 256 << 20, 1000, 0)] == \
        ["512KiB", "1MiB", "256MiB", "1000", "0"]


def test_write_replaces_results_and_leaves_no_temporaries(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text("old")
    (tmp_path / "notes.txt").write_text("mine")
    report.write([{"model": "m", "status": "ok", "total_cycles": 5}], [], 1.0, tmp_path)
    assert json.loads((tmp_path / "results.json").read_text())["results"][0]["total_cycles"] == 5
    assert (tmp_path / "results.csv").read_text().splitlines() == ["model,status,total_cycles", "m,ok,5"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "results.csv", "results.json"]
