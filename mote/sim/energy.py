"""The energy model: what a run on a platform (mote.sim.platforms) costs, from events the virtual
platform counts exactly.

    E = scale * ( sum over instruction classes c of  n_c * e_c           (the core, per class)
                + N * e_fetch                                           (one fetch per instruction)
                + sum over memories m of  reads_m * e_read_m + writes_m * e_write_m
                + dma_bytes * e_dma_byte
                + accel_macs * e_mac + accel_sram_accesses * e_sram )

n_c are the executed instructions of class c (mote.sim.decode.Cls), N their sum; loads and stores are
counted per memory by address (the memory hook). The figures e_* are the platform's; docs/energy.md
gives the published source of every default and the technology node they are for. Static (leakage)
energy is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mote.sim.platform import MEMORY_REGIONS
from mote.sim.platforms import AcceleratorSlot, Platform

PJ_PER_UJ = 1e6


@dataclass(frozen=True)
class EnergyEvents:
    """What one run (or one layer of it) did that costs energy."""

    class_counts: dict[str, int]  # executed instructions per class name (mote.sim.cycles.named_counts)
    reads: dict[str, int] = field(default_factory=dict)   # loads per memory name
    writes: dict[str, int] = field(default_factory=dict)  # stores per memory name
    dma_bytes: int = 0
    accel_macs: int = 0
    accel_sram_accesses: int = 0

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
                "dma_uj": round(self.dma_pj / PJ_PER_UJ, 6), "accel_uj": round(self.accel_pj / PJ_PER_UJ, 6)}


def energy(platform: Platform, events: EnergyEvents) -> Energy:
    """The energy of `events` on `platform`'s compute cores (the formula in the module docstring)."""
    group = platform.compute
    scale = platform.energy_scale
    core = sum(n * group.energy_pj[name] for name, n in events.class_counts.items())
    memory = {}
    for m in platform.memories:
        reads, writes = events.reads.get(m.name, 0), events.writes.get(m.name, 0)
        memory[m.name] = scale * (reads * m.read_pj + writes * m.write_pj)
    dma = events.dma_bytes * (platform.dma[0].byte_pj if platform.dma else 0.0)
    # an accelerator attached with --accel to a platform that declares none: the default figures
    slot = platform.accelerators[0] if platform.accelerators else AcceleratorSlot("accel", ())
    accel = events.accel_macs * slot.mac_pj + events.accel_sram_accesses * slot.sram_pj
    return Energy(scale * core, scale * events.instructions * group.fetch_pj, memory, scale * dma, scale * accel)


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


def between(platform: Platform, class_counts: dict[str, int], start: Any, end: Any,
            accel_macs: int = 0, dma_bytes: int = 0) -> Energy | None:
    """The energy of what ran between two counter snapshots, whose class counts' difference is
    `class_counts` (None when memory accesses were not counted, see `accesses`)."""
    counted = accesses(platform, start, end)
    if counted is None:
        return None
    return energy(platform, EnergyEvents(class_counts, *counted, dma_bytes=dma_bytes, accel_macs=accel_macs))
