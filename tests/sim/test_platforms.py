"""Platforms as data: the built-ins, files in TOML and JSON, and one-line errors for bad files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from mote.errors import PlatformError
from mote.sim.cycles import CoreModel
from mote.sim.platform_file import load_platform, parse_platform
from mote.sim.platforms import BUILTIN, DEFAULT_CLASS_PJ, CoreGroup, Dma, builtin
from mote.targets.rv32 import Rv32Config

TOML = """\
name = "tiny"
description = "a small MCU"
stack = "8KiB"
node = "22 nm, 0.8 V"
energy_scale = 0.5

[[cores]]
name = "core"
isa = "rv32imfc"
cycles = { load = 1, mulh = 2 }
energy_pj = { alu = 10.0 }
fetch_pj = 4.0

[[memories]]
name = "flash"
kind = "flash"
size = "1MiB"
read_pj = 30.0

[[memories]]
name = "sram"
kind = "ram"
size = "128KiB"
read_pj = 5.0
write_pj = 6.0
"""

JSON = {"name": "tiny", "description": "a small MCU", "stack": 8192, "node": "22 nm, 0.8 V", "energy_scale": 0.5,
        "cores": [{"name": "core", "isa": "rv32imfc", "cycles": {"load": 1, "mulh": 2}, "energy_pj": {"alu": 10.0},
                   "fetch_pj": 4.0}],
        "memories": [{"name": "flash", "kind": "flash", "size": "1MiB", "read_pj": 30.0},
                     {"name": "sram", "kind": "ram", "size": 131072, "read_pj": 5.0, "write_pj": 6.0}]}


def test_mcu_is_todays_virtual_mcu() -> None:
    """The mcu platform describes exactly what the rv32 target's defaults are."""
    mcu, today = builtin("mcu"), Rv32Config()
    assert (mcu.memory("flash").bytes, mcu.memory("ram").bytes, mcu.stack_bytes) == \
        (today.flash_bytes, today.ram_bytes, today.stack_bytes)
    assert mcu.compute.isa == today.isa and mcu.compute.cycles == today.core == CoreModel()
    assert mcu.total_cores == 1 and not mcu.dma and mcu.memory("l1") is None
    mcu.check_simulated()


def test_cluster_platforms() -> None:
    for name in ("cluster8", "cluster8+dla"):
        p = builtin(name)
        assert [g.count for g in p.cores] == [1, 8]
        assert p.memory("l1").bytes == 64 << 10 and p.memory("ram").bytes == 512 << 10
        assert p.dma and p.dma[0].source == "l2" and p.dma[0].target == "l1"
        p.check_simulated()  # its cluster runs (mote.sim.cluster)
        p.with_cores(1).check_simulated()  # one cluster core with the L1 and its DMA (the controller idle)
    dla = builtin("cluster8+dla").accelerators
    assert len(dla) == 1 and set(dla[0].sees) == {"l1", "l2"}
    assert set(BUILTIN) == {"mcu", "cluster8", "cluster8+dla"}


def test_cores_override() -> None:
    p = builtin("cluster8").with_cores(4)
    assert [g.count for g in p.cores] == [1, 4]
    builtin("mcu").with_cores(2).check_simulated()
    builtin("mcu").with_cores(1).check_simulated()
    groups = (CoreGroup("a", count=2), CoreGroup("b", count=8))
    with pytest.raises(PlatformError, match="one group of cores"):
        dataclasses.replace(builtin("cluster8"), cores=groups).check_simulated()


def test_an_l1_needs_a_dma_from_the_ram() -> None:
    p = builtin("cluster8").with_cores(1)
    with pytest.raises(PlatformError, match="l1 memory has no DMA from its ram memory"):
        dataclasses.replace(p, dma=()).check_simulated()
    dataclasses.replace(p, dma=(Dma("l1", "l2"),)).check_simulated()  # either way round


def test_toml_and_json_describe_the_same_platform(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(TOML)
    (tmp_path / "p.json").write_text(json.dumps(JSON))
    a, b = load_platform(tmp_path / "p.toml"), load_platform(tmp_path / "p.json")
    assert a == b
    assert a.name == "tiny" and a.stack_bytes == 8 << 10 and a.energy_scale == 0.5 and a.node == "22 nm, 0.8 V"
    core = a.compute
    assert core.isa == "rv32imfc" and core.cycles.load == 1 and core.cycles.mulh == 2
    assert core.cycles.div == CoreModel().div  # not given: the default
    assert core.energy_pj["alu"] == 10.0 and core.energy_pj["mul"] == DEFAULT_CLASS_PJ["mul"] and core.fetch_pj == 4.0
    assert a.memory("ram").name == "sram" and a.memory("ram").bytes == 128 << 10
    assert (a.memory("ram").read_pj, a.memory("ram").write_pj, a.memory("flash").read_pj) == (5.0, 6.0, 30.0)
    a.check_simulated()


def _broken(**change: object) -> dict[str, object]:
    data = json.loads(json.dumps(JSON))
    for path, value in change.items():
        *parents, key = path.split("__")
        node = data
        for p in parents:
            node = node[int(p)] if p.isdigit() else node[p]
        if value is None:
            del node[key]
        else:
            node[key] = value
    return data


@pytest.mark.parametrize("change, words", [
    ({"colour": "red"}, ["the top level", "unknown key 'colour'"]),
    ({"name": None}, ["name is missing"]),
    ({"memories__1__size": "lots"}, ["memories[1].size", "not a size"]),
    ({"memories__1__size": 0}, ["memories[1].size", "1 byte to 1GiB"]),
    ({"memories__1__kind": "dram"}, ["memories[1].kind", "flash, ram, l1"]),
    ({"memories__1__read_pj": -1}, ["memories[1].read_pj", "at least 0"]),
    ({"memories__1__kind": "flash"}, ["memories", "exactly one memory of kind 'flash'"]),
    ({"memories__1__name": "flash"}, ["memories", "names a memory twice"]),
    ({"cores__0__count": 0}, ["cores[0].count", "1 to 64"]),
    ({"cores__0__count": True}, ["cores[0].count"]),
    ({"cores__0__isa": "x86"}, ["cores[0].isa", "RV32"]),
    ({"cores__0__cycles": {"warp": 1}}, ["cores[0].cycles", "unknown key 'warp'"]),
    ({"cores__0__energy_pj": {"alu": "cheap"}}, ["cores[0].energy_pj.alu"]),
    ({"cores__0__code_in": "rom"}, ["cores[0].code_in", "'rom'"]),
    ({"cores": {"name": "x"}}, ["cores", "list of tables"]),
    ({"dma": [{"source": "l2", "target": "sram"}]}, ["dma[0].source", "'l2'"]),
    ({"accelerators": [{"name": "npu", "sees": ["l1"]}]}, ["accelerators[0].sees", "'l1'"]),
    ({"stack": "1MiB"}, ["stack", "smaller than the ram"]),
])
def test_bad_files_are_one_line_errors(tmp_path: Path, change: dict[str, object], words: list[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_broken(**change)))
    with pytest.raises(PlatformError) as info:
        load_platform(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"platform file {path}: ")
    for word in words:
        assert word in message


@pytest.mark.parametrize("name, raw, words", [
    ("p.toml", b"name = [", ["invalid TOML"]),
    ("p.json", b"{", ["invalid JSON at line 1"]),
    ("p.yaml", b"name: x", ["name it .toml or .json"]),
    ("p.json", b"\xff\xfe", ["not UTF-8"]),
    ("p.json", b"[1, 2]", ["the top level is a list, not a table"]),
])
def test_unreadable_files(name: str, raw: bytes, words: list[str]) -> None:
    with pytest.raises(PlatformError) as info:
        parse_platform(raw, Path(name))
    assert "\n" not in str(info.value) and all(w in str(info.value) for w in words)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlatformError, match="cannot read it"):
        load_platform(tmp_path / "none.toml")


def test_platforms_are_hashable_values() -> None:
    """Like the rv32 configuration that holds one: frozen, comparable, hashable."""
    assert hash(Rv32Config()) == hash(Rv32Config())
    assert {builtin(name) for name in BUILTIN} == {builtin(name) for name in BUILTIN}
    assert builtin("mcu").compute.energy_pj["alu"] == DEFAULT_CLASS_PJ["alu"]
