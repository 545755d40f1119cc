"""Typed key=value settings, as the CLI parses --core and accelerator configurations."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mote.config import parse_settings, parse_size
from mote.errors import MoteError
from mote.sim.cycles import CoreModel


@dataclass(frozen=True)
class Example:
    pes: int = 64
    sram: int = 512 << 10
    timed: bool = False
    mode: str = "output"
    ratio: float = 1.0


def test_values_are_typed_by_the_fields() -> None:
    got = parse_settings(Example, "pes=128, sram=1MiB,timed=1,mode=input,ratio=0.5", "dla")
    assert got == Example(128, 1 << 20, True, "input", 0.5)
    assert parse_settings(Example, "", "dla") == Example()


@pytest.mark.parametrize("text, words", [("pez=1", ["unknown setting", "pes, sram"]), ("pes", ["unknown"]),
                                         ("timed=maybe", ["timed", "boolean"]), ("sram=lots", ["sram", "size"])])
def test_errors_name_the_setting(text: str, words: list[str]) -> None:
    with pytest.raises(MoteError) as info:
        parse_settings(Example, text, "dla")
    for word in words:
        assert word in str(info.value)


def test_sizes() -> None:
    assert [parse_size(s) for s in ("65536", "512KiB", "2MiB", "1G")] == [65536, 512 << 10, 2 << 20, 1 << 30]


def test_core_model_costs_change_the_cycles() -> None:
    core = parse_settings(CoreModel, "load=1,div=1", "--core")
    assert (core.load, core.div, core.alu) == (1, 1, 1)
