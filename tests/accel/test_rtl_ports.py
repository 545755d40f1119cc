"""The port check of mote/accel/rtl/ports.py on Verilator's reading of real designs (the bundled QVanilla and
altered copies), and how the top module is found when none is named (mote/accel/rtl/design.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mote.accel.rtl import RtlError
from mote.accel.rtl.design import top_module
from mote.accel.rtl.ports import CONTRACT, check_ports, differences
from mote.accel.rtl.tools import verilator_tool

QVANILLA = Path(__file__).resolve().parents[2] / "mote" / "accel" / "rtl" / "qvanilla.sv"


def _check(path: Path, top: str = "qvanilla") -> None:
    tool, env = verilator_tool()
    check_ports([path], top, tool, {**os.environ, **env})


def _altered(tmp_path: Path, old: str, new: str) -> Path:
    text = QVANILLA.read_text()
    assert old in text, old
    path = tmp_path / "altered.sv"
    path.write_text(text.replace(old, new, 1))
    return path


def test_qvanilla_meets_the_contract() -> None:
    _check(QVANILLA)


@pytest.mark.parametrize(("old", "new", "said"), [
    ("output logic [31:0] mem_addr", "output logic [15:0] mem_addr", "mem_addr is 16 bits wide, not 32"),
    ("input  logic        mem_ready", "output logic        mem_ready", "mem_ready is an output, not an input"),
    ("input  logic        mem_rvalid,", "input  logic        mem_rvalid,\n    input  logic        irq,",
     "port irq is not one of mote's"),
])
def test_each_difference_is_named(tmp_path: Path, old: str, new: str, said: str) -> None:
    with pytest.raises(RtlError) as error:
        _check(_altered(tmp_path, old, new))
    assert "\n" not in str(error.value) and said in str(error.value) and "docs/rtl.md" in str(error.value)


def test_differences_lists_missing_ports() -> None:
    ports = {name: spec for name, spec in CONTRACT.items() if name != "busy"}
    assert differences(ports) == ["no port busy (output, 1 bit)"]
    assert differences(dict(CONTRACT)) == []
    assert differences({**CONTRACT, "reg_index": ("input", None)}) == []  # a width Verilator did not tell


def test_top_module(tmp_path: Path) -> None:
    two = tmp_path / "npu.sv"
    two.write_text("// module commented_out (\nmodule helper (input logic a);\nendmodule\n"
                   "/* module hidden; */\nmodule npu (input logic clk);\n  helper h (.a(clk));\nendmodule\n")
    assert top_module([two]) == "npu"  # named like the file
    assert top_module([two], "helper") == "helper"  # the class's rtl_top, when declared
    assert top_module([QVANILLA], "not_there") == "qvanilla"
    other = tmp_path / "other.sv"
    other.write_text(two.read_text())
    with pytest.raises(RtlError, match="--top MODULE .modules found: helper, npu"):
        top_module([other])
