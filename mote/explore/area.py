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
(8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ) and extended beyond them along the nearest segment; sram_accesses
= the SRAM's read and write bytes / 8; e_dma_byte = (one system-RAM access + one SRAM access) / 8 bytes.
"""

from __future__ import annotations

import math
from typing import Any

from mote.accel.hardware import Hardware
from mote.sim.energy import PJ_PER_UJ
from mote.sim.platforms import AcceleratorSlot

MULT8_UM2 = 282.0  # 8-bit integer multiplier, 45 nm (Horowitz, ISSCC 2014)
ADD32_UM2 = 137.0  # 32-bit integer adder, 45 nm (the same table): the accumulator
MAC_UM2 = MULT8_UM2 + ADD32_UM2
MULT8_PJ = 0.2  # 8-bit integer multiply, 45 nm (Horowitz, ISSCC 2014); e_mac less it is the accumulate
SRAM_BITCELL_UM2 = 0.37  # 45 nm high-density 6T bit cell (Nii et al., ISQED 2013)
SRAM_ARRAY_EFFICIENCY = 0.5  # bit cells / macro area (decoders, sense amplifiers, I/O): an assumption
SRAM_UM2_PER_KIB = 8192 * SRAM_BITCELL_UM2 / SRAM_ARRAY_EFFICIENCY
SRAM_PJ = ((8 << 10, 10.0), (32 << 10, 20.0), (1 << 20, 100.0))  # 64-bit access, by size (Horowitz)
RAM_ACCESS_PJ = 100.0  # the system RAM's 64-bit access (the 1 MB SRAM; docs/energy.md)
ACCESS_BYTES = 8
UM2_PER_MM2 = 1e6


def area(hardware: Hardware) -> dict[str, float]:
    """The PE array's, the SRAM's and the total area in mm²."""
    lanes = 8 // min(hardware.weight_bits, default=8)
    pe = hardware.pes * (MULT8_UM2 + lanes * ADD32_UM2) / UM2_PER_MM2
    sram = hardware.sram_bytes / 1024 * SRAM_UM2_PER_KIB / UM2_PER_MM2
    return {"area_mm2": round(pe + sram, 6), "pe_area_mm2": round(pe, 6), "sram_area_mm2": round(sram, 6)}


def sram_access_pj(size: int) -> float:
    """One 64-bit access to an SRAM of `size` bytes (log-log between the tabulated sizes)."""
    if size <= 0:
        return 0.0
    points = SRAM_PJ
    i = 0 if size <= points[1][0] else 1  # the segment: below 32 KB the first, above it the second
    (s0, e0), (s1, e1) = points[i], points[i + 1]
    slope = math.log(e1 / e0) / math.log(s1 / s0)
    return e0 * math.exp(slope * math.log(size / s0))


def accel_energy(row: dict[str, Any], hardware: Hardware | None) -> dict[str, float]:
    """The accelerator's energy (µJ) for a row's MACs, SRAM traffic and DMA bytes (those it reports)."""
    mac_pj = AcceleratorSlot("accel", ()).mac_pj
    sram = hardware.sram_bytes if hardware is not None else 0
    access = sram_access_pj(sram)
    accesses = (row.get("sram_read_bytes", 0) + row.get("sram_write_bytes", 0)) / ACCESS_BYTES
    dma_pj = (RAM_ACCESS_PJ + access) / ACCESS_BYTES
    macs = row.get("macs", 0)
    mac = macs * mac_pj if row.get("mult_work") is None else \
        row["mult_work"] * MULT8_PJ + macs * (mac_pj - MULT8_PJ)
    parts = {"mac_uj": mac, "sram_uj": accesses * access,
             "dma_uj": row.get("dma_bytes", 0) * dma_pj}
    return {k: round(v / PJ_PER_UJ, 6) for k, v in parts.items()}
