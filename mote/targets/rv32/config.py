"""The rv32 virtual MCU's settings (Rv32Config) and a firmware built for it (FirmwareBuild)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mote.errors import MoteError
from mote.sim.cycles import CoreModel
from mote.sim.machine import MemoryMap
from mote.sim.platforms import Platform, builtin
from mote.targets.rv32.levels import l1_bytes
from mote.targets.rv32.toolchain import ISAS, OPT_LEVELS, Toolchain

PAGE = 0x1000
MAX_REGION = 1 << 30  # fits the memory map (mote/sim/devices.py) with room to spare


@dataclass(frozen=True)
class Rv32Config:
    """The virtual MCU: memory sizes, compiler, and the core's timing and alignment behaviour.

    Flash starts at 0x8000_0000 and RAM at 0x2000_0000 (mote/sim/devices.py); the stack is the top
    `stack_bytes` of RAM."""

    flash_bytes: int = 2 << 20
    ram_bytes: int = 512 << 10
    stack_bytes: int = 16 << 10
    cc: str = "auto"  # "gcc" (riscv64-unknown-elf-gcc) when present, else "zig"; or either by name
    opt: str = "-O2"
    isa: str = "rv32imc"  # or "rv32imfc": the F extension, float kernels in hardware (ilp32f)
    check_alignment: bool = True  # fault on misaligned loads and stores, as most MCU cores do
    core: CoreModel = field(default_factory=CoreModel)
    platform: Platform = field(default_factory=lambda: builtin("mcu"))  # its energy figures (mote.sim.energy)
    cores: int = 1  # cores running the firmware (mote.sim.cluster), each with a stack of stack_bytes

    @property
    def stack_region(self) -> int:
        """The stack region at the top of RAM: every core's stack."""
        return self.cores * self.stack_bytes

    def validate(self) -> None:
        for name in ("flash_bytes", "ram_bytes"):
            value = getattr(self, name)
            if value <= 0 or value % PAGE:
                raise MoteError(f"rv32 {name} must be a positive multiple of 4 KiB, not {value}")
        if self.cores < 1:
            raise MoteError(f"rv32 cores must be at least 1, not {self.cores}")
        if self.stack_bytes <= 0 or self.stack_bytes % 16 or self.stack_region >= self.ram_bytes:
            each = f" (one per core: {self.cores} stacks)" if self.cores > 1 else ""
            raise MoteError(f"rv32 stack_bytes must be a positive multiple of 16 smaller than RAM{each}, "
                            f"not {self.stack_bytes}")
        if max(self.flash_bytes, self.ram_bytes) > MAX_REGION:
            raise MoteError("rv32 flash and RAM are at most 1 GiB each")
        if self.opt not in OPT_LEVELS:
            raise MoteError(f"rv32 opt must be one of {', '.join(OPT_LEVELS)}, not {self.opt!r}")
        if self.isa not in ISAS:
            raise MoteError(f"rv32 isa must be one of {', '.join(ISAS)}, not {self.isa!r}")

    def memory_map(self) -> MemoryMap:
        return MemoryMap(self.flash_bytes, self.ram_bytes, self.stack_region, l1_bytes=l1_bytes(self.platform),
                         dma=bool(self.platform.dma))


@dataclass(frozen=True)
class FirmwareBuild:
    elf: Path
    toolchain: Toolchain
    cflags: tuple[str, ...]
    command: tuple[str, ...]

    @property
    def cc(self) -> str:
        return self.toolchain.version
