"""Platforms as data: a virtual MCU described by what it is made of, not by code.

A Platform lists its core groups (a name, an ISA, how many cores, their cycle and energy costs per
instruction class), its memories (size, wait states, energy per access), a DMA engine (bandwidth,
channels, energy per byte) and its accelerators (which memories each sees, energy per MAC and per
SRAM access). Built-ins are chosen by name (`BUILTIN`); mote.sim.platform_file reads one from a TOML
or JSON file. The energy figures and their published sources are in docs/energy.md.

What the virtual platform simulates today is the compute group's cores (one, or a cluster:
mote.sim.cluster) over flash, one RAM (the L2 of a cluster) and optionally an L1 scratchpad fed by a DMA
from that RAM, with their wait states on loads and stores (mote.sim.dma_device, mote.sim.dma_timing).
Layers are tiled into the L1 on one core; on several they are split across the cores over the RAM
(docs/platforms.md). `check_simulated` refuses, in one line, a platform the virtual platform cannot run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from mote.errors import PlatformError
from mote.sim.cycles import CoreModel

# Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, 45 nm at 0.9 V
# (docs/energy.md tabulates each figure and how the defaults below derive from it). In pJ.
_OVERHEAD = 70.0 - 25.0  # an instruction (70) less its instruction-cache access (25): pipeline, RF, control
_ADD32, _MUL32, _FADD32, _FMUL32 = 0.1, 3.1, 0.9, 3.7
SRAM_8K, SRAM_32K, SRAM_1M = 10.0, 20.0, 100.0  # one 64-bit access of an SRAM of that size

DEFAULT_CLASS_PJ: dict[str, float] = {
    "alu": _OVERHEAD + _ADD32, "load": _OVERHEAD, "store": _OVERHEAD, "mul": _OVERHEAD + _MUL32,
    "mulh": _OVERHEAD + _MUL32, "div": _OVERHEAD + 34 * _ADD32, "branch_taken": _OVERHEAD + _ADD32,
    "branch_not_taken": _OVERHEAD + _ADD32, "jump": _OVERHEAD + _ADD32, "fpu": _OVERHEAD + _FMUL32,
    "fdiv": _OVERHEAD + 12 * _FADD32,
}
DEFAULT_FETCH_PJ = 25.0  # Horowitz's instruction-cache access, per instruction executed


@dataclass(frozen=True)
class ClassEnergy:
    """Energy per instruction of each class (pJ; loads and stores without their memory access),
    read by class name: energy["alu"]. Frozen and hashable, like CoreModel."""

    alu: float = DEFAULT_CLASS_PJ["alu"]
    load: float = DEFAULT_CLASS_PJ["load"]
    store: float = DEFAULT_CLASS_PJ["store"]
    mul: float = DEFAULT_CLASS_PJ["mul"]
    mulh: float = DEFAULT_CLASS_PJ["mulh"]
    div: float = DEFAULT_CLASS_PJ["div"]
    branch_taken: float = DEFAULT_CLASS_PJ["branch_taken"]
    branch_not_taken: float = DEFAULT_CLASS_PJ["branch_not_taken"]
    jump: float = DEFAULT_CLASS_PJ["jump"]
    fpu: float = DEFAULT_CLASS_PJ["fpu"]
    fdiv: float = DEFAULT_CLASS_PJ["fdiv"]

    def __getitem__(self, name: str) -> float:
        return float(getattr(self, name))


@dataclass(frozen=True)
class CoreGroup:
    """`count` identical cores: their ISA, cycles per instruction class (CoreModel) and energy per
    instruction of each class (pJ, loads and stores without their memory access) plus its fetch."""

    name: str = "core"
    isa: str = "rv32imc"
    count: int = 1
    cycles: CoreModel = field(default_factory=CoreModel)
    energy_pj: ClassEnergy = field(default_factory=ClassEnergy)
    fetch_pj: float = DEFAULT_FETCH_PJ
    code_in: str = "flash"  # the memory its instructions are fetched from


@dataclass(frozen=True)
class Memory:
    """One memory: `kind` flash (read-only code and constants), ram (data, stack) or l1 (a
    scratchpad fed by DMA), its size, extra cycles per access beyond the core model's, and the
    energy of one load and one store (pJ)."""

    name: str
    kind: str
    bytes: int
    wait_states: int = 0
    read_pj: float = SRAM_1M
    write_pj: float = SRAM_1M
    shared_by: tuple[str, ...] = ()  # the core groups that reach it directly (empty: all)


@dataclass(frozen=True)
class Dma:
    """A DMA engine moving bytes between two memories: bytes per cycle, channels (jobs in flight at
    once), energy per byte and the cycles a job takes before its first byte moves (mote.sim.dma_timing)."""

    source: str
    target: str
    bytes_per_cycle: int = 8
    channels: int = 1
    byte_pj: float = (SRAM_1M + SRAM_8K) / 8
    setup_cycles: int = 16


@dataclass(frozen=True)
class AcceleratorSlot:
    """An accelerator beside the cores: which memories it reads and writes, its energy per MAC and per
    access of its own SRAM (pJ), and optionally the accelerator --accel would attach (NAME[:K=V,...])."""

    name: str
    sees: tuple[str, ...]
    mac_pj: float = 0.2 + _ADD32  # an 8-bit multiply and a 32-bit accumulate
    sram_pj: float | None = None  # None: by the size of the SRAM the accelerator declares (mote.sim.energy)
    accel: str = ""


@dataclass(frozen=True)
class Platform:
    name: str
    description: str = ""
    cores: tuple[CoreGroup, ...] = (CoreGroup(),)
    memories: tuple[Memory, ...] = ()
    stack_bytes: int = 16 << 10
    dma: tuple[Dma, ...] = ()
    accelerators: tuple[AcceleratorSlot, ...] = ()
    node: str = "45 nm, 0.9 V"  # the technology node the energy figures are for
    energy_scale: float = 1.0   # multiplies every energy figure (to scale them to another node)

    def memory(self, kind: str) -> Memory | None:
        return next((m for m in self.memories if m.kind == kind), None)

    @property
    def total_cores(self) -> int:
        return sum(g.count for g in self.cores)

    @property
    def compute(self) -> CoreGroup:
        """The group that runs the layers: the last one (the cluster, after its controller)."""
        return self.cores[-1]

    def stall_cycles(self, reads: dict[str, int], writes: dict[str, int]) -> int:
        """Cycles the core waits on its memories: each load and store costs its memory's wait states on
        top of the core model's cycles (instruction fetches are taken to hit a zero-wait prefetch buffer)."""
        return sum(m.wait_states * (reads.get(m.name, 0) + writes.get(m.name, 0)) for m in self.memories)

    def with_cores(self, count: int) -> Platform:
        """--cores N: the compute group with N cores."""
        groups = (*self.cores[:-1], dataclasses.replace(self.compute, count=count))
        return dataclasses.replace(self, name=f"{self.name} (--cores {count})", cores=groups)

    def check_simulated(self) -> None:
        """Raise PlatformError unless the virtual platform can run this platform: its compute group's cores
        (mote.sim.cluster: core 0 also plays the controller) over its flash and ram, and an l1 memory only with
        a DMA from the ram."""
        if self.memory("flash") is None or self.memory("ram") is None:
            raise PlatformError(f"platform {self.name}: the virtual platform needs a flash and a ram memory; "
                                "use --platform mcu or a platform file with one of each")
        if len(self.cores) > 2 or (len(self.cores) == 2 and self.cores[0].count != 1):
            raise PlatformError(f"platform {self.name}: the virtual platform runs one group of cores (and at most "
                                "a one-core controller before it, played by core 0); give one core group")
        if self.memory("l1") is not None and self.l1_dma() is None:
            raise PlatformError(f"platform {self.name}: its l1 memory has no DMA from its ram memory; add a "
                                "[[dma]] with that source and target")

    def l1_dma(self) -> Dma | None:
        """The DMA between the ram (L2) and the l1 memory, either way round (None: there is none)."""
        ram, l1 = self.memory("ram"), self.memory("l1")
        if ram is None or l1 is None:
            return None
        return next((d for d in self.dma if {d.source, d.target} == {ram.name, l1.name}), None)


def _mcu() -> Platform:
    return Platform(
        "mcu", "one rv32imc core (CV32E40P-like timing) with 2 MiB of flash and 512 KiB of RAM, zero wait states",
        memories=(Memory("flash", "flash", 2 << 20), Memory("ram", "ram", 512 << 10)))


def _cluster8(dla: bool = False) -> Platform:
    cores = (CoreGroup("controller", count=1), CoreGroup("cluster", count=8))
    memories = (Memory("flash", "flash", 2 << 20),
                Memory("l2", "ram", 512 << 10, wait_states=0),
                Memory("l1", "l1", 64 << 10, read_pj=SRAM_8K, write_pj=SRAM_8K, shared_by=("cluster",)))
    accelerators = (AcceleratorSlot("dla", ("l1", "l2"), accel="dla"),) if dla else ()
    what = "a controller and an 8-core cluster sharing 64 KiB of L1, 512 KiB of L2, a cluster DMA"
    return Platform("cluster8+dla" if dla else "cluster8", what + (" and a deep-learning accelerator" if dla else ""),
                    cores=cores, memories=memories, dma=(Dma("l2", "l1", bytes_per_cycle=8, channels=2),),
                    accelerators=accelerators)


BUILTIN = {"mcu": _mcu, "cluster8": _cluster8, "cluster8+dla": lambda: _cluster8(dla=True)}


def builtin(name: str) -> Platform:
    if name not in BUILTIN:
        raise PlatformError(f"--platform {name}: no such built-in platform and no such file; built in: "
                            f"{', '.join(BUILTIN)} (or give a .toml or .json file)")
    return BUILTIN[name]()

