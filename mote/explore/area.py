"""Area and the accelerator's energy per point of an exploration, from the hardware the accelerator
declares (mote.accel.hardware) and the traffic its cost model reports. The figures and their published
sources are in docs/area.md (45 nm, like docs/energy.md).

    area_mm2 = pes * (A_mult8 + lanes * A_add32)  +  sram_bytes/1024 * A_sram_per_KiB
    accel_uj = macs * e_mac  +  sram_accesses * e_sram(sram_bytes)  +  dma_bytes * e_dma_byte(sram_bytes)

lanes = 8 / the narrowest weight width the PEs take (Hardware.weight_bits): a PE with sub-byte modes
splits its multiplier into that many lanes, each with its own accumulator (the multiplier's area is
taken as unchanged: an assumption, docs/area.md). With sub-byte weights, where the accelerator reports
`mult_work` (MACs x weight bits / 8), e_mac splits into the multiplier's share, scaled by the width, and
the accumulator's: macs * e_mac becomes mult_work * e_mult8 + macs * e_add32 (an assumption too: an
array multiplier's partial products grow with the width of one operand).

e_sram(size): the energy of one 64-bit access, interpolated log-log between Horowitz's three SRAM sizes
(8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ) and extended beyond them along the nearest segment (unless the
platform's accelerator slot sets it); sram_accesses = the SRAM's read and write bytes / 8; e_dma_byte =
(one system-RAM access + one SRAM access) / 8 bytes. The pricing is mote.sim.energy's `accel_pj`, the one a
run on the virtual platform uses, so that a run's µJ and the exploration's agree.
"""

from __future__ import annotations

from typing import Any

from mote.accel.hardware import Hardware
from mote.sim.energy import PJ_PER_UJ, accel_pj, accel_slot
from mote.sim.platforms import Platform

MULT8_UM2 = 282.0  # 8-bit integer multiplier, 45 nm (Horowitz, ISSCC 2014)
ADD32_UM2 = 137.0  # 32-bit integer adder, 45 nm (the same table): the accumulator
MAC_UM2 = MULT8_UM2 + ADD32_UM2
SRAM_BITCELL_UM2 = 0.37  # 45 nm high-density 6T bit cell (Nii et al., ISQED 2013)
SRAM_ARRAY_EFFICIENCY = 0.5  # bit cells / macro area (decoders, sense amplifiers, I/O): an assumption
SRAM_UM2_PER_KIB = 8192 * SRAM_BITCELL_UM2 / SRAM_ARRAY_EFFICIENCY
UM2_PER_MM2 = 1e6


def area(hardware: Hardware) -> dict[str, float]:
    """The PE array's, the SRAM's and the total area in mm²."""
    lanes = 8 // min(hardware.weight_bits, default=8)
    pe = hardware.pes * (MULT8_UM2 + lanes * ADD32_UM2) / UM2_PER_MM2
    sram = hardware.sram_bytes / 1024 * SRAM_UM2_PER_KIB / UM2_PER_MM2
    return {"area_mm2": round(pe + sram, 6), "pe_area_mm2": round(pe, 6), "sram_area_mm2": round(sram, 6)}


def accel_energy(row: dict[str, Any], hardware: Hardware | None, platform: Platform | None = None) -> dict[str, float]:
    """The accelerator's energy (µJ, unscaled) for a row's MACs, SRAM traffic and DMA bytes (those it reports),
    with the figures of `platform`'s accelerator slot (None: the defaults)."""
    slot = accel_slot(platform, hardware.sram_bytes if hardware is not None else 0)
    parts = accel_pj(slot, row.get("macs", 0), row.get("sram_read_bytes", 0) + row.get("sram_write_bytes", 0),
                     row.get("dma_bytes", 0), row.get("mult_work"))
    return {f"{k}_uj": round(v / PJ_PER_UJ, 6) for k, v in parts.items()}
