"""Names from a model never act on the terminal: rich markup, ANSI escapes, control characters and
line breaks in tensor names are shown escaped in tables and in one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, mote

from mote.frontend.tflite_writer import ModelBuilder
from mote.terminal import markup, plain

HOSTILE = ["[/]", "[bold red]loud[/bold red]", "\x1b[31mred\x1b[0m\x1b]0;title\x07", "line\rover\nnext",
           "nul\x00bell\x07", "rtl\u202eevil", "back\\slash"]


def _relu_chain(names: list[str]) -> bytes:
    b = ModelBuilder()
    tensors = [b.tensor(name, (1, 8), "int8", scale=0.1, zero_point=0) for name in names]
    for x, y in zip(tensors, tensors[1:]):
        b.op("RELU", [x], [y])
    return b.build([tensors[0]], [tensors[-1]])


def _assert_nothing_raw(text: str) -> None:
    for raw in ("\x1b", "\r", "\x00", "\x07", "\u202e"):
        assert raw not in text


@pytest.mark.parametrize("name", HOSTILE)
def test_plain_is_one_inert_line(name: str) -> None:
    shown = plain(name)
    _assert_nothing_raw(shown)
    assert "\n" not in shown and shown.isprintable()


def test_markup_shows_the_brackets_literally() -> None:
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(markup("[/] and [bold]x[/bold]"))
    assert console.export_text().strip() == "[/] and [bold]x[/bold]"


def test_run_and_partition_tables_with_hostile_names(tmp_path: Path) -> None:
    model = tmp_path / "hostile.tflite"
    model.write_bytes(_relu_chain(["input", *HOSTILE, "output"]))
    run = mote("run", model)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "bit-exact" in run.stdout
    _assert_nothing_raw(run.stdout)
    assert "[/]" in run.stdout and "[bold red]loud" in run.stdout  # shown, not interpreted
    report = json.loads(mote("run", model, "--json").stdout)
    assert [layer["name"] for layer in report["layers"]] == [*HOSTILE, "output"]  # JSON keeps the names exactly

    part = mote("partition", model, "--accel", "qvanilla")
    assert part.returncode == 0, part.stderr
    _assert_nothing_raw(part.stdout)
    assert "[/]" in part.stdout and "\\x1b[31mred" in part.stdout


def test_errors_naming_a_hostile_tensor_stay_one_line(tmp_path: Path) -> None:
    b = ModelBuilder()
    x = b.tensor("x", (1, 8), "int8", scale=0.1, zero_point=0)
    y = b.tensor("out\x1b[2J\nput", (1, 8), "int8", scale=0.1, zero_point=0)
    b.op("RNN", [x], [y])
    (tmp_path / "abs.tflite").write_bytes(b.build([x], [y]))
    proc = mote("run", tmp_path / "abs.tflite")
    assert_one_line_error(proc, "RNN", "out\\x1b[2J\\nput")
    _assert_nothing_raw(proc.stderr)
