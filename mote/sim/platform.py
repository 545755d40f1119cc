"""What the virtual platform is made of before it runs: the memory map, the firmware image loaded into
flash (decoded on demand), where the stack is, and what a finished run returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mote.ints import round_up
from mote.sim.accel_device import AccelStats
from mote.sim.decode import Insn
from mote.sim.devices import FLASH_BASE, L1_BASE, RAM_BASE, Mark
from mote.sim.dma_device import DmaLog
from mote.sim.elf import ElfImage
from mote.sim.faults import SimulationError
from mote.sim.isa import Isa, rv32

# The memories whose loads and stores a run counts, in order (mote.sim.counting.Snapshot.reads):
# the kinds of mote.sim.platforms.Memory that the memory map has.
MEMORY_REGIONS = ("flash", "ram", "l1")


@dataclass
class MemoryMap:
    """Flash and RAM sizes (bases from mote.sim.devices); the stack is the top `stack_bytes` of RAM. A
    platform with an L1 scratchpad maps `l1_bytes` of it; one with a DMA maps its device (`dma`)."""

    flash_bytes: int = 2 << 20
    ram_bytes: int = 512 << 10
    stack_bytes: int = 16 << 10
    flash_base: int = FLASH_BASE
    ram_base: int = RAM_BASE
    l1_bytes: int = 0
    l1_base: int = L1_BASE
    dma: bool = False

    @property
    def stack_top(self) -> int:
        return self.ram_base + self.ram_bytes

    @property
    def stack_bottom(self) -> int:
        return self.stack_top - self.stack_bytes


@dataclass
class Execution:
    """One finished run: the counters at the exit store and at every profiler mark (all exact)."""

    exit_status: int
    console: str
    instructions: int       # reset to the exit store
    class_counts: np.ndarray  # per mote.sim.decode.Cls, same span
    marks: list[tuple[Mark, int, np.ndarray]]  # (mark, instructions so far, class counts so far)
    stack_used: int
    seconds: float          # in the emulator
    outputs: dict[str, bytes] = field(default_factory=dict)  # the `reads` symbols' bytes
    io_outputs: dict[int, bytes] = field(default_factory=dict)  # model output i, from its OUTPUT store
    io_frames: list[dict[int, bytes]] = field(default_factory=list)  # a stream's io_outputs, frame by frame
    exact: bool = True      # every mark's store was located (always so for mote's firmware)
    accel: AccelStats | None = None  # the accelerator's jobs and cost-model cycles, if the platform has one
    exit_snapshot: Any = None  # the counters at the exit store (mote.sim.counting.Snapshot)
    dma: DmaLog | None = None  # the DMA's jobs and waits, if the platform has one (mote.sim.dma_device)
    dma_classes: list[np.ndarray] = field(default_factory=list)  # the class counts at each of its events

    @property
    def mips(self) -> float:
        return self.instructions / max(self.seconds, 1e-9) / 1e6


class LoadedFirmware:
    """One firmware ELF laid out in the platform's memory, with the settings a run uses: alignment
    checks, an accelerator, and the host C compiler that builds the native counter (mote.sim.counting).
    `isa` is the core's instruction set (mote.sim.isa); without it an RV32 core, with the F extension if
    `fpu`."""

    def __init__(self, elf: Path, memory: MemoryMap | None = None, check_alignment: bool = True,
                 accelerator: Any = None, *, host_cc: str, fpu: bool = False, isa: Isa | None = None) -> None:
        self.fpu = fpu  # a core with the F extension (rv32imfc firmware)
        self.isa = isa or rv32(fpu)
        self.image = ElfImage(elf, self.isa.elf_machine)
        self.accelerator = accelerator  # a mote.accel Accelerator, mapped at ACCEL_BASE
        self.memory = memory = memory or MemoryMap()
        self.check_alignment = check_alignment
        self.host_cc = host_cc
        self.flash = self._flash_image()
        self._decoded: dict[int, list[Insn]] = {}
        # Where the stack is: the linker script's symbols if present, else the memory map. The
        # simulator paints from the end of the static data up ("painted"), so that a stack that grows
        # past its region shows up in the free RAM below it.
        bottom = self.image.symbols.get("__stack_bottom", (memory.stack_bottom, 0))[0]
        top = self.image.symbols.get("__stack_top", (memory.stack_top, 0))[0]
        painted = self.image.symbols.get("__static_ram_end", (bottom, 0))[0]
        self.stack = (bottom, top)
        self.painted = (min(painted, bottom) + 3) // 4 * 4
        self.painted = round_up(min(painted, bottom), 4)

    def _flash_image(self) -> bytearray:
        m = self.memory
        flash = bytearray(m.flash_bytes)
        for seg in self.image.segments:
            if m.flash_base <= seg.addr and seg.addr + len(seg.data) <= m.flash_base + m.flash_bytes:
                off = seg.addr - m.flash_base
                flash[off:off + len(seg.data)] = seg.data
            elif not (m.ram_base <= seg.addr and seg.addr + len(seg.data) <= m.ram_base + m.ram_bytes) and \
                    not (m.l1_base <= seg.addr and seg.addr + len(seg.data) <= m.l1_base + m.l1_bytes):
                raise SimulationError(f"the firmware loads {len(seg.data)} bytes at 0x{seg.addr:08x}, "
                                      "outside flash and RAM")
        return flash

    def code(self, insn: Insn) -> bytes:
        """The bytes of one instruction (in flash)."""
        return self.code_at(insn.addr, insn.size)

    def code_at(self, addr: int, size: int = 4) -> bytes:
        """`size` bytes of flash at `addr`."""
        off = addr - self.memory.flash_base
        return bytes(self.flash[off:off + size])

    def decode(self, addr: int, ninsn: int) -> list[Insn]:
        """The instructions of the block at `addr` (cached). Code only ever runs from flash."""
        insns = self._decoded.get(addr)
        if insns is None:
            off = addr - self.memory.flash_base
            insns = self.isa.decode(addr, bytes(self.flash[off:off + 4 * ninsn]), ninsn)
            self._decoded[addr] = insns
        return insns
