"""The cluster DMA device: copies between memory levels (flash, L2 = the platform's ram, L1) that the
firmware programs through memory-mapped registers, and the record a run keeps of its jobs and waits.

Registers (32-bit words at DMA_BASE + offset, see `DmaReg`): the firmware stores the source address,
the destination address and the length in bytes, then *loads* START, which starts the job and returns
its id (1, 2, ... in the order the jobs start); a store of an id to WAIT waits for that job.

The copy itself happens at START, in the emulator's memory, so the data never depends on timing. Its
time is modelled afterwards from the exact counters at each START and WAIT (mote.sim.dma_timing): a
WAIT for a job the model says is not finished yet stalls the core, and those stall cycles (the exposed
DMA) are added to the run's cycles. Firmware must still WAIT before it uses a job's destination (or
reuses its source) as it would on hardware: the simulator does not check that it does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

DMA_BASE = 0x1200_0000
DMA_BYTES = 0x1000


class DmaReg(IntEnum):
    """The DMA device's registers: byte offsets into its page."""

    SRC = 0x00    # the source address
    DST = 0x04    # the destination address
    LEN = 0x08    # the number of bytes
    START = 0x0C  # load: start the job (copy SRC..SRC+LEN to DST); returns its id
    WAIT = 0x10   # store a job id: wait until that job has finished


@dataclass
class DmaJob:
    """One started job: its id, where from and to (the memory kinds: flash, ram or l1), its bytes and the
    counters at its START load (mote.sim.counting.Snapshot)."""

    id: int
    source: str
    target: str
    nbytes: int
    snapshot: Any


@dataclass
class DmaWait:
    """One WAIT store: the job waited for and the counters at the store."""

    job: int
    snapshot: Any


@dataclass
class DmaLog:
    """Every START and WAIT of a run, in program order."""

    events: list[DmaJob | DmaWait] = field(default_factory=list)

    @property
    def jobs(self) -> list[DmaJob]:
        return [e for e in self.events if isinstance(e, DmaJob)]


class DmaDevice:
    """The registers of one run's DMA device. `regions` maps each memory kind to its [low, high)
    addresses; `copy(dst, src, n)` moves bytes in the emulator's memory; `snapshot(offset, size, value)`
    takes the exact counters at the current access; `fail(what)` stops the run with an error."""

    def __init__(self, regions: dict[str, tuple[int, int]], copy: Callable[[int, int, int], None],
                 snapshot: Callable[[int, int, int], Any], fail: Callable[[str], None]) -> None:
        self.regions = regions
        self.copy = copy
        self.snapshot = snapshot
        self.fail = fail
        self.src = self.dst = self.length = 0
        self.log = DmaLog()
        self._started = 0
        self.refused: str | None = None  # set on a cluster core that may not program it: why (mote.sim.cluster)

    def _level(self, addr: int, n: int, what: str) -> str | None:
        for kind, (low, high) in self.regions.items():
            if low <= addr and addr + n <= high:
                return kind
        self.fail(f"DMA job {self._started + 1}: its {what} 0x{addr:08x}..0x{addr + n:08x} is not inside one "
                  f"memory ({', '.join(self.regions)})")
        return None

    def read(self, uc: Any, offset: int, size: int, data: object) -> int:
        if self.refused is not None:
            self.fail(self.refused)
            return 0
        if offset != DmaReg.START:
            return {DmaReg.SRC: self.src, DmaReg.DST: self.dst, DmaReg.LEN: self.length}.get(offset, 0)
        source, target = self._level(self.src, self.length, "source"), self._level(self.dst, self.length, "destination")
        if source is None or target is None:
            return 0
        if target == "flash":
            self.fail(f"DMA job {self._started + 1}: its destination 0x{self.dst:08x} is in flash, which is read-only")
            return 0
        self._started += 1
        self.copy(self.dst, self.src, self.length)
        self.log.events.append(DmaJob(self._started, source, target, self.length,
                                      self.snapshot(offset, size, self._started)))
        return self._started

    def write(self, uc: Any, offset: int, size: int, value: int, data: object) -> None:
        if self.refused is not None:
            self.fail(self.refused)
            return
        if offset == DmaReg.SRC:
            self.src = value
        elif offset == DmaReg.DST:
            self.dst = value
        elif offset == DmaReg.LEN:
            self.length = value
        elif offset == DmaReg.WAIT:
            if not 1 <= value <= self._started:
                self.fail(f"DMA wait for job {value}, which was never started ({self._started} jobs so far)")
                return
            self.log.events.append(DmaWait(value, self.snapshot(offset, size, value)))
        else:
            self.fail(f"store to unknown DMA register 0x{DMA_BASE + offset:08x}")


def c_header_lines() -> list[str]:
    """The DMA registers and the macros mote_dma.h builds on, for mote_vp.h."""
    regs = [f"#define MOTE_VP_DMA_{r.name}_ADDR 0x{DMA_BASE + r.value:08X}" for r in DmaReg]
    return ["/* The cluster DMA (mote/sim/dma_device.py): a job copies LEN bytes from SRC to DST; a load of START",
            " * starts it and returns its id, a store of the id to WAIT waits for it. */", *regs]
