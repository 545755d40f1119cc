"""The parts of a firmware ELF the simulator needs: loadable bytes, symbols, section sizes."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from mote.errors import BuildError


@dataclass(frozen=True)
class Segment:
    addr: int  # load (physical) address: where the bytes sit in the memory image
    data: bytes


class ElfImage:
    def __init__(self, path: Path, machine: str = "EM_RISCV") -> None:
        """`machine`: the ELF e_machine the firmware must be for (EM_RISCV, EM_ARM)."""
        self.path = Path(path)
        try:
            with self.path.open("rb") as f:
                elf = ELFFile(f)
                if elf["e_machine"] != machine or elf.elfclass != 32:
                    what = {"EM_RISCV": "RISC-V", "EM_ARM": "Arm"}.get(machine, machine)
                    raise BuildError(f"{path}: not a 32-bit {what} ELF")
                self.entry = int(elf["e_entry"])
                self.segments = [Segment(int(s["p_paddr"]), s.data()) for s in elf.iter_segments()
                                 if s["p_type"] == "PT_LOAD" and s["p_filesz"] > 0]
                self.sections = [(s.name, int(s["sh_addr"]), int(s["sh_size"]), s["sh_type"] == "SHT_NOBITS")
                                 for s in elf.iter_sections() if s["sh_flags"] & SH_FLAGS.SHF_ALLOC]
                self.symbols: dict[str, tuple[int, int]] = {}
                functions: list[tuple[int, int, str]] = []
                symtab = elf.get_section_by_name(".symtab")
                for sym in symtab.iter_symbols() if symtab else ():
                    name, kind = sym.name, sym["st_info"]["type"]
                    if not name or name.startswith(("$", ".L")) or kind in ("STT_FILE", "STT_SECTION"):
                        continue
                    addr, size = int(sym["st_value"]), int(sym["st_size"])
                    self.symbols.setdefault(name, (addr, size))
                    if kind == "STT_FUNC" or (kind == "STT_NOTYPE" and sym["st_shndx"] != "SHN_ABS"):
                        # a Thumb function's symbol has its low bit set; its code starts one byte lower
                        functions.append((addr & ~1 if kind == "STT_FUNC" else addr, size, name))
        except OSError as e:
            raise BuildError(f"{path}: cannot read the firmware ({e.strerror})") from None
        functions.sort()
        self._func_addrs = [a for a, _, _ in functions]
        self._funcs = functions

    def symbol(self, name: str) -> tuple[int, int]:
        """(address, size) of a symbol."""
        if name not in self.symbols:
            raise BuildError(f"{self.path.name}: no symbol {name!r} in the firmware")
        return self.symbols[name]

    def function_at(self, pc: int) -> str | None:
        """'name+0xoff' for the code symbol containing (or, for sizeless labels, preceding) pc."""
        label = None
        for i in range(bisect.bisect_right(self._func_addrs, pc) - 1, -1, -1):
            addr, size, name = self._funcs[i]
            if size and pc < addr + size:
                label = (name, addr)  # a function that covers pc wins over any label
                break
            if size:
                break  # functions do not overlap: nothing earlier covers pc
            label = label or (name, addr)
        if label is None:
            return None
        name, addr = label
        return name if pc == addr else f"{name}+0x{pc - addr:x}"

    def footprint(self, ram_base: int, ram_bytes: int) -> tuple[int, int]:
        """(ROM, static RAM) bytes: flash holds every loaded section not in RAM plus .data's initial
        values; RAM holds .data, .bss and the other no-load sections placed in it."""
        rom = ram = 0
        for _, addr, size, nobits in self.sections:
            in_ram = ram_base <= addr < ram_base + ram_bytes
            if in_ram:
                ram += size
            if not nobits:
                rom += size
        return rom, ram
