"""What a run on the virtual platform reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mote.sim.dma_timing import DmaFigures
from mote.sim.energy import Energy
from mote.sim.timeline import Span


@dataclass
class LayerProfile:
    """One layer, between its MOTE_LAYER_BEGIN and MOTE_LAYER_END stores (exact instructions)."""

    index: int
    instructions: int
    cycles: int
    class_counts: dict[str, int] = field(default_factory=dict)
    accel_cycles: int = 0  # timed mode: the accelerator's cycles within this layer
    energy: Energy | None = None  # mote.sim.energy, on the run's platform
    dma: DmaFigures | None = None  # its DMA jobs, bytes and exposed cycles (in `cycles`); None: no DMA
    # On a cluster (mote.sim.cluster): each core's instructions and busy cycles in the layer; `instructions`
    # is then their sum and `cycles` the layer's critical path (its slowest core and the barriers).
    core_instructions: list[int] = field(default_factory=list)
    core_cycles: list[int] = field(default_factory=list)

    @property
    def energy_uj(self) -> float | None:
        return None if self.energy is None else round(self.energy.uj, 6)

    @property
    def utilization(self) -> list[float]:
        """Each core's busy share of the layer's cycles (cluster runs; empty on one core)."""
        return [round(c / self.cycles, 4) if self.cycles else 0.0 for c in self.core_cycles]

    def to_json(self) -> dict[str, Any]:
        out = {"index": self.index, "instructions": self.instructions, "cycles": self.cycles,
               "accel_cycles": self.accel_cycles, "energy_uj": self.energy_uj,
               **({"dma": self.dma.to_json()} if self.dma is not None else {})}
        if self.core_cycles:
            out["cores"] = [{"instructions": n, "cycles": c, "utilization": u}
                            for n, c, u in zip(self.core_instructions, self.core_cycles, self.utilization)]
        return out


@dataclass
class CoreFigures:
    """One core of a cluster over a run: its instructions, its busy cycles (waiting excluded), its energy."""

    core: int
    instructions: int
    cycles: int
    energy: Energy | None = None

    def to_json(self) -> dict[str, Any]:
        return {"core": self.core, "instructions": self.instructions, "cycles": self.cycles,
                "energy_uj": None if self.energy is None else round(self.energy.uj, 6)}


@dataclass
class SimResult:
    """One inference on the virtual platform.

    `instructions`, `cycles` and `class_counts` are the CPU's and cover model_run alone (from the
    call to its return), drivers and polling included; `accel_cycles` are the accelerator's cost-model
    cycles in timed mode (0 in zero-cycle mode) and `total_cycles` = cycles + accel_cycles.
    `firmware_instructions` / `firmware_cycles` cover the whole firmware from reset to the exit store,
    including the startup code's .data copy and .bss zeroing. Instructions are exact, cycles are the
    estimate of `core` (mote.sim.cycles.CoreModel) plus the platform's memory wait states on each load
    and store (none on the mcu platform) plus the cycles the core waits on the DMA (mote.sim.dma_timing).
    `energy` is the model's (mote.sim.energy) over the same span, µJ per inference in the JSON."""

    outputs: dict[str, np.ndarray]
    instructions: int
    cycles: int
    class_counts: dict[str, int]
    firmware_instructions: int
    firmware_cycles: int
    rom_bytes: int     # flash: .text + .rodata + .data's initial values
    ram_bytes: int     # static RAM: .data + .bss (+ .noinit); the model's I/O lives in its arena
    stack_bytes: int   # stack high-water mark, measured
    stack_limit: int   # the stack region's size
    sim_seconds: float
    sim_mips: float
    layers: list[LayerProfile]
    cc: str
    cflags: str
    core: str
    console: str = ""
    accel_cycles: int = 0
    accel_jobs: int = 0
    platform: str = "mcu"
    energy: Energy | None = None  # of model_run on `platform` (mote.sim.energy); None: not counted
    memory_accesses: tuple[dict[str, int], dict[str, int]] | None = None  # (loads, stores) per memory, same span
    # the DMA's jobs, bytes per memory and exposed cycles (included in `cycles`), same span; None: no DMA
    dma: DmaFigures | None = None
    peak_bytes: dict[str, int] | None = None  # the most bytes each memory held (by name; static + stack)
    # an RTL accelerator's cycles beside its cost model's, per layer too (mote/sim/rtl_device.py); None: no RTL
    accel_rtl: dict[str, Any] | None = None
    # On a cluster: each core's figures; `instructions`, `class_counts` and `energy` are then summed over the
    # cores and `cycles` is the critical path (mote.targets.rv32.cluster_result). Empty on one core.
    cores: list[CoreFigures] = field(default_factory=list)
    # the run's spans of work on its tracks (mote.sim.timeline; mote.targets.rv32.timeline builds them)
    timeline: list[Span] = field(default_factory=list)

    @property
    def total_cycles(self) -> int:
        return self.cycles + self.accel_cycles

    def _accesses_json(self) -> dict[str, dict[str, int]] | None:
        if self.memory_accesses is None:
            return None
        loads, stores = self.memory_accesses
        return {name: {"loads": n, "stores": stores[name]} for name, n in loads.items()}

    @property
    def energy_uj(self) -> float | None:
        """µJ of this call on the run's platform; None where memory accesses were not counted."""
        return None if self.energy is None else round(self.energy.uj, 6)

    def to_json(self) -> dict[str, Any]:
        """Everything but the output arrays, JSON-ready (per-layer numbers under "layer_profile")."""
        return {
            "instructions": self.instructions,
            "cycles": self.cycles,
            "class_counts": self.class_counts,
            "accel_cycles": self.accel_cycles,
            "accel_jobs": self.accel_jobs,
            "total_cycles": self.total_cycles,
            "firmware_instructions": self.firmware_instructions,
            "firmware_cycles": self.firmware_cycles,
            "rom_bytes": self.rom_bytes,
            "ram_bytes": self.ram_bytes,
            "stack_bytes": self.stack_bytes,
            "stack_limit_bytes": self.stack_limit,
            "sim_seconds": round(self.sim_seconds, 4),
            "sim_mips": round(self.sim_mips, 1),
            "cc": self.cc,
            "cflags": self.cflags,
            "core": self.core,
            "platform": self.platform,
            "energy_uj": self.energy_uj,
            "energy": None if self.energy is None else self.energy.to_json(),
            "memory_accesses": self._accesses_json(),
            "peak_bytes": self.peak_bytes,
            "dma": None if self.dma is None else self.dma.to_json(),
            "layer_profile": [layer.to_json() for layer in self.layers],
            **({} if self.accel_rtl is None else {"accel_rtl": self.accel_rtl}),
            **({"cores": [c.to_json() for c in self.cores]} if self.cores else {}),
        }
