"""A run's µJ on the virtual platform and `mote explore`'s µJ for the same configuration agree: the run
prices each offloaded layer's MACs, SRAM accesses and DMA bytes from the accelerator's cost model as the
exploration does (mote.sim.energy.accel_pj), and the exploration's CPU share is that run's less its
accelerator share. Each side rounds its parts to 1e-6 µJ, hence the tolerance of a few of those."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote.accel import find_accelerator
from mote.explore.cpu import platform_target
from mote.explore.sweep import sweep
from mote.pipeline import default_model, run
from mote.sim.energy import sram_access_pj
from mote.sim.platforms import builtin

ROUNDING_UJ = 1e-5  # each side rounds a handful of parts to 6 decimals


@pytest.mark.parametrize("cores", [1, 4])
def test_a_runs_energy_is_the_explorations(cores: int) -> None:
    platform = builtin("cluster8+dla").with_cores(cores)
    model = Path(default_model())
    rows, _ = sweep([model], "dla", {"timed": ["1"]}, workers=1, progress=False, platform=platform)
    row, = rows
    assert row["status"] == "ok" and row["jobs"] > 0 and row["dma_bytes"] > 0 and row["sram_read_bytes"] > 0
    accelerator = find_accelerator("dla:timed=1")
    report = run(model, target=platform_target(platform), accelerator=accelerator)
    assert report.bit_exact
    spent = report.to_json()["energy"]
    assert spent["accel_traffic"] == "sram_and_dma"
    assert abs(spent["accel_uj"] - row["accel_energy_uj"]) < ROUNDING_UJ
    assert abs(spent["total_uj"] - row["energy_uj"]) < ROUNDING_UJ
    # the accelerator's share, by hand from the explored row's traffic: MACs, SRAM accesses, DMA bytes
    e_sram = sram_access_pj(accelerator.hardware().sram_bytes)
    by_hand = (row["macs"] * platform.accelerators[0].mac_pj
               + (row["sram_read_bytes"] + row["sram_write_bytes"]) / 8 * e_sram
               + row["dma_bytes"] * (100.0 + e_sram) / 8) / 1e6
    assert spent["accel_uj"] == pytest.approx(by_hand, abs=ROUNDING_UJ)
    parts = spent["accel_parts_uj"]
    assert parts["sram"] > 0 and parts["dma"] > 0 and parts["mac"] < spent["accel_uj"]
    # per layer (profile): the offloaded layers carry the accelerator's whole share, within the run's total
    layers = report.to_json()["layers"]
    offloaded = [layer.get("energy_uj") or 0.0 for layer in layers if layer.get("runs_on") == "dla"]
    assert offloaded and sum(offloaded) >= spent["accel_uj"] - ROUNDING_UJ
    assert sum(layer.get("energy_uj") or 0.0 for layer in layers) <= spent["total_uj"] + ROUNDING_UJ


def test_sub_byte_weights_cost_the_run_what_they_cost_the_exploration() -> None:
    """With 4-bit weights the multipliers' share of each MAC shrinks by half on both sides (docs/area.md's
    assumption), so the run's MAC energy falls below the 8-bit run's and still equals the exploration's."""
    platform = builtin("cluster8+dla")
    model = Path(default_model())
    macs_uj = {}
    for bits in (8, 4):
        rows, _ = sweep([model], "dla", {"timed": ["1"], "weight_bits": [str(bits)]}, workers=1, progress=False,
                        platform=platform)
        row, = rows
        report = run(model, target=platform_target(platform), accelerator=find_accelerator(f"dla:timed=1,"
                                                                                           f"weight_bits={bits}"))
        assert report.bit_exact
        spent = report.to_json()["energy"]
        assert abs(spent["accel_uj"] - row["accel_energy_uj"]) < ROUNDING_UJ
        macs_uj[bits] = spent["accel_parts_uj"]["mac"]
    assert macs_uj[4] < macs_uj[8]
