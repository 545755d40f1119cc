"""Typed key=value settings, as the CLI parses --core and accelerator configurations."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mote.config import (
    SettingSpec,
    check_config,
    parse_config,
    parse_settings,
    parse_size,
    parse_value,
    setting,
    settings_of,
)
from mote.errors import MoteError
from mote.sim.cycles import CoreModel


@dataclass(frozen=True)
class Example:
    pes: int = 64
    sram: int = setting(512 << 10, doc="bytes of SRAM", size=True, sweep=(64 << 10, 512 << 10))
    timed: bool = False
    mode: str = setting("output", doc="dataflow", choices=("input", "output"), sweep=("input", "output"))
    ratio: float = setting(1.0, doc="a ratio", minimum=0.5)


def test_values_are_typed_by_the_fields() -> None:
    got = parse_settings(Example, "pes=128, sram=1MiB,timed=1,mode=input,ratio=0.5", "dla")
    assert got == Example(128, 1 << 20, True, "input", 0.5)
    assert parse_settings(Example, "", "dla") == Example()


@pytest.mark.parametrize("text, words", [("pez=1", ["unknown setting", "pes, sram"]), ("pes", ["unknown"]),
                                         ("timed=maybe", ["timed", "boolean"]), ("sram=lots", ["sram", "size"]),
                                         ("mode=diagonal", ["mode=diagonal", "one of input, output"]),
                                         ("ratio=0.25", ["ratio=0.25", "at least 0.5"]),
                                         ("ratio=x", ["ratio", "not a number"])])
def test_errors_name_the_setting(text: str, words: list[str]) -> None:
    with pytest.raises(MoteError) as info:
        parse_config(Example, text, "dla")
    assert "\n" not in str(info.value) and str(info.value).startswith("dla: ")
    for word in words:
        assert word in str(info.value)


def test_sizes_only_where_declared() -> None:
    assert parse_config(Example, "sram=64K", "dla").sram == 64 << 10
    with pytest.raises(MoteError, match="pes: '64K' is not an integer; units such as K or KiB are only for sizes"):
        parse_config(Example, "pes=64K", "dla")
    assert parse_config(Example, "pes=65536", "dla").pes == 65536


def test_declarations_are_readable() -> None:
    specs = {s.name: s for s in settings_of(Example)}
    assert specs["pes"] == SettingSpec("pes", int, 64)  # undeclared: the annotation and default only
    assert specs["sram"].size and specs["sram"].sweep == (64 << 10, 512 << 10) and specs["sram"].doc == "bytes of SRAM"
    assert specs["mode"].type is str and specs["mode"].choices == ("input", "output")
    assert specs["ratio"].type is float and specs["ratio"].minimum == 0.5
    assert parse_value(specs["sram"], "2M", "--sweep sram") == 2 << 20
    assert parse_value(specs["timed"], "on", "x") is True


def test_configs_built_in_code_are_checked() -> None:
    check_config(Example(), "dla")
    with pytest.raises(MoteError, match="dla: mode=sideways is not allowed"):
        check_config(Example(mode="sideways"), "dla")


def test_sizes() -> None:
    assert [parse_size(s) for s in ("65536", "512KiB", "2MiB", "1G")] == [65536, 512 << 10, 2 << 20, 1 << 30]


def test_core_model_costs_change_the_cycles() -> None:
    core = parse_settings(CoreModel, "load=1,div=1", "--core")
    assert (core.load, core.div, core.alu) == (1, 1, 1)
