"""--platform and --cores on `mote run --target rv32`: the mcu platform is today's virtual MCU, a platform
file sets the memories, the core's timing and the energy figures, and what is not simulated yet is
refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from test_cli import assert_one_line_error, mote

from mote.sim.cycles import CoreModel
from mote.sim.decode import Cls
from mote.sim.platforms import builtin

# The mcu platform with its RAM halved, loads costing 1 cycle and every energy figure doubled.
FILE = """\
name = "half"
energy_scale = 2.0
[[cores]]
cycles = { load = 1 }
[[memories]]
name = "flash"
kind = "flash"
size = "2MiB"
[[memories]]
name = "ram"
kind = "ram"
size = "256KiB"
"""


def _run(*args: str | Path) -> dict:
    proc = mote("run", "--target", "rv32", "--cc", "zig", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_mcu_platform_file_and_overrides(tmp_path: Path) -> None:
    today = _run()
    mcu = _run("--platform", "mcu", "--cores", "1")
    for key in ("instructions", "cycles", "class_counts", "firmware_instructions", "firmware_cycles", "energy_uj"):
        assert mcu[key] == today[key], key
    assert mcu["platform"].startswith("mcu") and today["platform"] == "mcu"
    # cycles are the class counts times the default core's costs; energy is reported per inference and layer
    costs = np.array(CoreModel().costs())
    assert today["cycles"] == int(np.array([today["class_counts"][c.name.lower()] for c in Cls]) @ costs)
    assert today["energy_uj"] > 0 and today["energy"]["total_uj"] == today["energy_uj"]
    layers = [layer["energy_uj"] for layer in today["layers"] if "energy_uj" in layer]
    assert layers and all(e > 0 for e in layers) and sum(layers) < today["energy_uj"]

    path = tmp_path / "half.toml"
    path.write_text(FILE)
    half = _run("--platform", path)
    assert half["instructions"] == today["instructions"] and half["platform"] == "half"
    assert half["cycles"] == today["cycles"] - today["class_counts"]["load"]  # a load: 1 cycle, not 2
    assert abs(half["energy_uj"] - 2 * today["energy_uj"]) < 1e-5
    assert _run("--platform", path, "--core", "load=3")["cycles"] == today["cycles"] + today["class_counts"]["load"]
    # loads and stores per memory: every load and store of the run is in one memory or the device page
    counted = today["memory_accesses"]
    assert counted["flash"]["stores"] == 0 and counted["flash"]["loads"] > 0 and counted["ram"]["stores"] > 0
    loads = counted["flash"]["loads"] + counted["ram"]["loads"]
    stores = counted["flash"]["stores"] + counted["ram"]["stores"]
    assert loads == today["class_counts"]["load"] and 0 < today["class_counts"]["store"] - stores <= 64
    # the energy is the documented formula over the counted events, recomputed here from the JSON
    mcu_platform = builtin("mcu")
    core = mcu_platform.compute
    by_hand = sum(n * core.energy_pj[name] for name, n in today["class_counts"].items())
    by_hand += today["instructions"] * core.fetch_pj
    for m in mcu_platform.memories:
        by_hand += counted[m.name]["loads"] * m.read_pj + counted[m.name]["stores"] * m.write_pj
    assert abs(today["energy_uj"] - by_hand / 1e6) < 2e-6
    # flash with 3 wait states: 3 more cycles per flash load (in the run and in each layer)
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps({"name": "slow", "memories": [
        {"name": "flash", "kind": "flash", "size": "2MiB", "wait_states": 3},
        {"name": "ram", "kind": "ram", "size": "512KiB"}]}))
    waited = _run("--platform", slow)
    assert waited["instructions"] == today["instructions"] and waited["memory_accesses"] == counted
    assert waited["cycles"] == today["cycles"] + 3 * counted["flash"]["loads"]
    assert sum(x["cycles"] for x in waited["layers"] if "cycles" in x) > \
        sum(x["cycles"] for x in today["layers"] if "cycles" in x)
    # the platform's RAM is the firmware's: a 256 KiB stack fills its 256 KiB (the mcu's 512 KiB has room)
    assert_one_line_error(mote("run", "--target", "rv32", "--cc", "zig", "--platform", path, "--stack", "256KiB"),
                          "smaller than RAM")


def test_a_platform_with_an_accelerator(tmp_path: Path) -> None:
    """A one-core platform file with an accelerator attaches it, and the MACs the accelerator does cost its energy
    per MAC: qvanilla computes a strided layer's every stride-1 position, 2 cycles each (its cost model), and its
    cost model reports no SRAM or DMA traffic, so its energy is its MACs' alone and the JSON says so."""
    path = tmp_path / "npu.json"
    path.write_text(json.dumps({"name": "npu", "memories": [
        {"name": "flash", "kind": "flash", "size": "2MiB"}, {"name": "ram", "kind": "ram", "size": "512KiB"}],
        "accelerators": [{"name": "npu", "sees": ["ram"], "mac_pj": 0.5, "accel": "qvanilla:timed=1"}]}))
    data = _run("--platform", path)
    assert data["accelerator"].startswith("qvanilla") and data["offloaded_layers"] > 0
    offloaded = sum(layer["macs"] for layer in data["layers"] if layer["runs_on"] != "cpu")
    accel_macs = data["accel_cycles"] // 2
    assert accel_macs >= offloaded > 0 and abs(data["energy"]["accel_uj"] - accel_macs * 0.5 / 1e6) < 1e-6
    assert data["energy"]["accel_traffic"] == "macs_only"
    assert data["energy"]["accel_parts_uj"] == {"mac": data["energy"]["accel_uj"], "sram": 0.0, "dma": 0.0}


def test_what_is_not_simulated_is_refused(tmp_path: Path) -> None:
    assert_one_line_error(mote("run", "--target", "rv32", "--cores", "0"), "--cores 0")
    assert_one_line_error(mote("run", "--target", "rv32", "--platform", "big"), "--platform big", "mcu, cluster8")
    assert_one_line_error(mote("run", "--platform", "mcu"), "--platform", "host")
    assert_one_line_error(mote("run", "--cores", "2"), "--cores", "host")
    bad = tmp_path / "bad.toml"
    bad.write_text(FILE.replace('kind = "ram"', 'kind = "dram"'))
    assert_one_line_error(mote("run", "--target", "rv32", "--platform", bad), str(bad), "memories[1].kind")


def test_cluster_platforms_are_described() -> None:
    assert builtin("cluster8").compute.count == 8 and builtin("cluster8+dla").accelerators
