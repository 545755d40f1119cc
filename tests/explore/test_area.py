"""The area and accelerator-energy model (docs/area.md): monotonic in PEs and SRAM, on Horowitz's
tabulated SRAM access energies, and each row of a DLA sweep carries it."""

from __future__ import annotations

import pytest

from mote.accel.dla.accelerator import Dla
from mote.accel.dla.config import DlaConfig
from mote.accel.hardware import Hardware
from mote.explore.area import MAC_UM2, SRAM_UM2_PER_KIB, accel_energy, area
from mote.sim.energy import sram_access_pj


def test_area_grows_with_pes_and_sram() -> None:
    by_pes = [area(Hardware(p, 64 << 10))["area_mm2"] for p in (1, 16, 64, 128, 256)]
    by_sram = [area(Hardware(64, s))["area_mm2"] for s in (0, 32 << 10, 64 << 10, 512 << 10, 1 << 20)]
    assert by_pes == sorted(by_pes) and len(set(by_pes)) == len(by_pes)
    assert by_sram == sorted(by_sram) and len(set(by_sram)) == len(by_sram)
    parts = area(Hardware(64, 256 << 10))
    assert parts["pe_area_mm2"] == pytest.approx(64 * MAC_UM2 / 1e6)
    assert parts["sram_area_mm2"] == pytest.approx(256 * SRAM_UM2_PER_KIB / 1e6)


def test_sram_access_energy_passes_through_the_table_and_grows() -> None:
    assert sram_access_pj(8 << 10) == pytest.approx(10.0)
    assert sram_access_pj(32 << 10) == pytest.approx(20.0)
    assert sram_access_pj(1 << 20) == pytest.approx(100.0)
    sizes = [1 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 256 << 10, 1 << 20, 4 << 20]
    energies = [sram_access_pj(s) for s in sizes]
    assert energies == sorted(energies) and len(set(energies)) == len(energies)


def test_accel_energy_counts_macs_sram_and_dma() -> None:
    row = {"macs": 1000, "sram_read_bytes": 800, "sram_write_bytes": 0, "dma_bytes": 80}
    small, big = accel_energy(row, Hardware(8, 8 << 10)), accel_energy(row, Hardware(8, 1 << 20))
    assert small["mac_uj"] == big["mac_uj"] == pytest.approx(1000 * 0.3e-6)
    assert small["sram_uj"] == pytest.approx(100 * 10e-6)
    assert small["dma_uj"] == pytest.approx(80 * (100 + 10) / 8 * 1e-6)
    assert big["sram_uj"] > small["sram_uj"] and big["dma_uj"] > small["dma_uj"]
    assert accel_energy({"macs": 10}, None) == {"mac_uj": pytest.approx(3e-6), "sram_uj": 0.0, "dma_uj": 0.0}


def test_the_dla_declares_its_config() -> None:
    hardware = Dla(DlaConfig(pes=32, sram=128 << 10, dma_bytes_per_cycle=4)).hardware()
    assert hardware == Hardware(32, 128 << 10, 4, (8, 4, 2))


def test_sub_byte_modes_cost_accumulators_and_save_multiplier_energy() -> None:
    """A PE with an int2 mode has 4 lanes, each with its accumulator; a MAC of 4-bit weights spends half the
    8-bit multiplier's energy and the whole accumulate (docs/area.md)."""
    plain, narrow = area(Hardware(10))["pe_area_mm2"], area(Hardware(10, weight_bits=(8, 4, 2)))["pe_area_mm2"]
    assert plain == pytest.approx(10 * MAC_UM2 / 1e6)
    assert narrow - plain == pytest.approx(10 * 3 * 137.0 / 1e6)
    eight = accel_energy({"macs": 1000, "mult_work": 1000.0}, None)["mac_uj"]
    four = accel_energy({"macs": 1000, "mult_work": 500.0}, None)["mac_uj"]
    assert eight == pytest.approx(1000 * 0.3e-6) and four == pytest.approx(1000 * (0.1 + 0.2 / 2) * 1e-6)
