"""The energy model: what a run on a platform (mote.sim.platforms) costs, from events the virtual
platform counts exactly.

    E = scale * ( sum over instruction classes c of  n_c * e_c           (the core, per class)
                + N * e_fetch                                           (one fetch per instruction)
                + sum over memories m of  reads_m * e_read_m + writes_m * e_write_m
                + dma_bytes * e_dma_byte
                + accel_macs * e_mac + accel_sram_bytes / 8 * e_sram
                + accel_dma_bytes * (e_ram + e_sram) / 8 )

n_c are the executed instructions of class c (mote.sim.decode.Cls), N their sum; loads and stores are
counted per memory by address (the memory hook). The figures e_* are the platform's; docs/energy.md
gives the published source of every default and the technology node they are for. Static (leakage)
energy is not modelled.

The accelerator's terms are those `mote explore` prices from its cost model (mote.explore.area, one
function for both, `accel_pj`): its MACs, the bytes it reads from and writes into its own SRAM (one
64-bit access per 8 bytes, e_sram by the size of that SRAM unless the platform's slot sets it), and
the bytes its DMA moves between system memory and that SRAM (one system-RAM access, e_ram, and one
SRAM access per 8 bytes). The run takes each offloaded layer's figures from the accelerator's own
cost model (mote.accel.work); an accelerator whose jobs report no traffic adds its MACs only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from mote.sim.platform import MEMORY_REGIONS
from mote.sim.platforms import SRAM_1M, SRAM_8K, SRAM_32K, AcceleratorSlot, Platform

PJ_PER_UJ = 1e6
SRAM_PJ = ((8 << 10, SRAM_8K), (32 << 10, SRAM_32K), (1 << 20, SRAM_1M))  # 64-bit access, by size (Horowitz)
RAM_ACCESS_PJ = SRAM_1M  # the system RAM's 64-bit access, the far end of an accelerator's DMA byte
ACCESS_BYTES = 8
MULT8_PJ = 0.2  # 8-bit integer multiply, 45 nm (Horowitz, ISSCC 2014); e_mac less it is the accumulate


@dataclass(frozen=True)
class EnergyEvents:
    """What one run (or one layer of it) did that costs energy."""

    class_counts: dict[str, int]  # executed instructions per class name (mote.sim.cycles.named_counts)
    reads: dict[str, int] = field(default_factory=dict)   # loads per memory name
    writes: dict[str, int] = field(default_factory=dict)  # stores per memory name
    dma_bytes: int = 0
    accel_macs: int = 0
    accel_sram_bytes: int = 0  # bytes the accelerator read from and wrote into its own SRAM
    accel_dma_bytes: int = 0   # bytes its DMA moved between system memory and that SRAM
    accel_mult_work: float | None = None  # its MACs weighted by their weights' bits / 8 (None: all 8-bit)
    accel_traffic: bool | None = None  # see Energy

    @property
    def instructions(self) -> int:
        return sum(self.class_counts.values())


@dataclass(frozen=True)
class Energy:
    """A run's energy by component, in pJ (already scaled)."""

    core_pj: float
    fetch_pj: float
    memory_pj: dict[str, float]  # by memory name
    dma_pj: float
    accel_pj: float
    accel_parts_pj: dict[str, float] = field(default_factory=dict)  # mac, sram, dma (accel_pj's parts)
    # None: no accelerator work; True: its SRAM and DMA traffic counted; False: its MACs only (its cost
    # model reports no traffic)
    accel_traffic: bool | None = None

    @property
    def total_pj(self) -> float:
        return self.core_pj + self.fetch_pj + sum(self.memory_pj.values()) + self.dma_pj + self.accel_pj

    @property
    def uj(self) -> float:
        return self.total_pj / PJ_PER_UJ

    def to_json(self) -> dict[str, Any]:
        return {"total_uj": round(self.uj, 6), "core_uj": round(self.core_pj / PJ_PER_UJ, 6),
                "fetch_uj": round(self.fetch_pj / PJ_PER_UJ, 6),
                "memory_uj": {name: round(pj / PJ_PER_UJ, 6) for name, pj in self.memory_pj.items()},
                "dma_uj": round(self.dma_pj / PJ_PER_UJ, 6), "accel_uj": round(self.accel_pj / PJ_PER_UJ, 6),
                **({} if self.accel_traffic is None else {
                    "accel_parts_uj": {k: round(v / PJ_PER_UJ, 6) for k, v in self.accel_parts_pj.items()},
                    "accel_traffic": "sram_and_dma" if self.accel_traffic else "macs_only"})}

    def __add__(self, other: Energy) -> Energy:
        memory = {name: self.memory_pj.get(name, 0.0) + other.memory_pj.get(name, 0.0)
                  for name in {*self.memory_pj, *other.memory_pj}}
        parts = {k: self.accel_parts_pj.get(k, 0.0) + other.accel_parts_pj.get(k, 0.0)
                 for k in {*self.accel_parts_pj, *other.accel_parts_pj}}
        kinds = [t for t in (self.accel_traffic, other.accel_traffic) if t is not None]
        return Energy(self.core_pj + other.core_pj, self.fetch_pj + other.fetch_pj, memory, self.dma_pj + other.dma_pj,
                      self.accel_pj + other.accel_pj, parts, all(kinds) if kinds else None)


def sram_access_pj(size: int) -> float:
    """One 64-bit access to an SRAM of `size` bytes: log-log between Horowitz's three sizes, extended beyond
    them along the nearest segment (0 for no SRAM)."""
    if size <= 0:
        return 0.0
    i = 0 if size <= SRAM_PJ[1][0] else 1  # the segment: below 32 KB the first, above it the second
    (s0, e0), (s1, e1) = SRAM_PJ[i], SRAM_PJ[i + 1]
    slope = math.log(e1 / e0) / math.log(s1 / s0)
    return e0 * math.exp(slope * math.log(size / s0))


def accel_slot(platform: Platform | None, sram_bytes: int = 0) -> AcceleratorSlot:
    """The accelerator's energy figures: the first slot `platform` declares (else the defaults), its SRAM
    access priced by the size of the SRAM the accelerator declares (`sram_bytes`) unless the slot sets
    sram_pj; SRAM_8K when neither says."""
    slot = platform.accelerators[0] if platform is not None and platform.accelerators else AcceleratorSlot("accel", ())
    if slot.sram_pj is None:
        slot = dataclasses.replace(slot, sram_pj=sram_access_pj(sram_bytes) if sram_bytes > 0 else SRAM_8K)
    return slot


def accel_pj(slot: AcceleratorSlot, macs: int, sram_bytes: int, dma_bytes: int,
             mult_work: float | None = None) -> dict[str, float]:
    """The accelerator's energy (pJ, unscaled) by part: its MACs, its SRAM accesses (`sram_bytes` read and
    written, one access per 8 bytes) and its DMA bytes (each one system-RAM and one SRAM access per 8). With
    sub-byte weights (`mult_work`: the MACs weighted by their weights' bits / 8) the multiplier's share of a MAC
    scales with the width and the accumulator's does not (an assumption, docs/area.md)."""
    sram_pj = slot.sram_pj if slot.sram_pj is not None else SRAM_8K
    mac = macs * slot.mac_pj if mult_work is None else mult_work * MULT8_PJ + macs * (slot.mac_pj - MULT8_PJ)
    return {"mac": mac, "sram": sram_bytes / ACCESS_BYTES * sram_pj,
            "dma": dma_bytes * (RAM_ACCESS_PJ + sram_pj) / ACCESS_BYTES}


def energy(platform: Platform, events: EnergyEvents, slot: AcceleratorSlot | None = None) -> Energy:
    """The energy of `events` on `platform`'s compute cores (the formula in the module docstring); `slot`:
    the accelerator's figures (accel_slot; default: the platform's, its SRAM of unknown size)."""
    group = platform.compute
    scale = platform.energy_scale
    core = sum(n * group.energy_pj[name] for name, n in events.class_counts.items())
    memory = {}
    for m in platform.memories:
        reads, writes = events.reads.get(m.name, 0), events.writes.get(m.name, 0)
        memory[m.name] = scale * (reads * m.read_pj + writes * m.write_pj)
    dma = events.dma_bytes * (platform.dma[0].byte_pj if platform.dma else 0.0)
    # an accelerator attached with --accel to a platform that declares none: the default figures
    parts = {k: scale * v for k, v in accel_pj(slot or accel_slot(platform), events.accel_macs,
                                                events.accel_sram_bytes, events.accel_dma_bytes,
                                                events.accel_mult_work).items()}
    return Energy(scale * core, scale * events.instructions * group.fetch_pj, memory, scale * dma,
                  sum(parts.values()), parts if events.accel_macs else {}, events.accel_traffic)


Accesses = tuple[dict[str, int], dict[str, int]]  # loads and stores per memory name


def accesses(platform: Platform, start: Any, end: Any) -> Accesses | None:
    """The loads and stores per memory of `platform` between two counter snapshots
    (mote.sim.counting.Snapshot, in MEMORY_REGIONS order; `start` None: from reset). None when memory
    accesses were not counted (a run without the memory hook, check_alignment=False)."""
    if end is None or end.reads is None or (start is not None and start.reads is None):
        return None
    reads, writes = {}, {}
    for i, kind in enumerate(MEMORY_REGIONS):
        memory = platform.memory(kind)
        if memory is None:
            continue
        reads[memory.name] = end.reads[i] - (start.reads[i] if start is not None else 0)
        writes[memory.name] = end.writes[i] - (start.writes[i] if start is not None else 0)
    return reads, writes


@dataclass(frozen=True)
class AccelWork:
    """What an accelerator did in a run or a layer: MACs, bytes read from and written into its SRAM, bytes
    its DMA moved; `traffic`: whether its cost model reported the SRAM and DMA figures (else MACs only)."""

    macs: int = 0
    sram_bytes: int = 0
    dma_bytes: int = 0
    traffic: bool = True
    mult_work: float | None = None  # the MACs weighted by their weights' bits / 8 (None: all 8-bit)

    def __add__(self, other: AccelWork) -> AccelWork:
        work = None if self.mult_work is None and other.mult_work is None else \
            (self.macs if self.mult_work is None else self.mult_work) + \
            (other.macs if other.mult_work is None else other.mult_work)
        return AccelWork(self.macs + other.macs, self.sram_bytes + other.sram_bytes,
                         self.dma_bytes + other.dma_bytes, self.traffic and other.traffic, work)


def between(platform: Platform, class_counts: dict[str, int], start: Any, end: Any,
            accel: AccelWork | None = None, dma_bytes: int = 0, slot: AcceleratorSlot | None = None) -> Energy | None:
    """The energy of what ran between two counter snapshots, whose class counts' difference is
    `class_counts`, the accelerator having done `accel` (its figures `slot`, see accel_slot); None when
    memory accesses were not counted (see `accesses`)."""
    counted = accesses(platform, start, end)
    if counted is None:
        return None
    work = accel or AccelWork()
    return energy(platform, EnergyEvents(class_counts, *counted, dma_bytes=dma_bytes, accel_macs=work.macs,
                                         accel_sram_bytes=work.sram_bytes, accel_dma_bytes=work.dma_bytes,
                                         accel_mult_work=work.mult_work,
                                         accel_traffic=None if accel is None else work.traffic), slot)
