"""Unicorn's errors and invalid memory accesses in the words of a SimulationError: which fault class, and what
happened."""

from __future__ import annotations

import unicorn as uc_mod

from mote.sim.faults import MemoryAccessError, MisalignedAccessError, SimulationError, TrapError

# an invalid access's kind -> (what happened, the access's name)
ACCESS = {uc_mod.UC_MEM_READ_UNMAPPED: ("load from unmapped address", "load"),
          uc_mod.UC_MEM_WRITE_UNMAPPED: ("store to unmapped address", "store"),
          uc_mod.UC_MEM_FETCH_UNMAPPED: ("instruction fetch from unmapped address", "fetch"),
          uc_mod.UC_MEM_WRITE_PROT: ("store to read-only memory (flash) at address", "store"),
          uc_mod.UC_MEM_READ_PROT: ("load from unreadable memory at address", "load"),
          uc_mod.UC_MEM_FETCH_PROT: ("instruction fetch from non-executable memory (RAM) at address", "fetch")}


def error_class(errno: int) -> type[SimulationError]:
    if errno in (uc_mod.UC_ERR_INSN_INVALID,):
        return TrapError
    if errno in (uc_mod.UC_ERR_READ_UNALIGNED, uc_mod.UC_ERR_WRITE_UNALIGNED, uc_mod.UC_ERR_FETCH_UNALIGNED):
        return MisalignedAccessError
    if errno in (uc_mod.UC_ERR_READ_UNMAPPED, uc_mod.UC_ERR_WRITE_UNMAPPED, uc_mod.UC_ERR_FETCH_UNMAPPED,
                 uc_mod.UC_ERR_READ_PROT, uc_mod.UC_ERR_WRITE_PROT, uc_mod.UC_ERR_FETCH_PROT):
        return MemoryAccessError
    return SimulationError


def error_text(e: uc_mod.UcError) -> str:
    if e.errno == uc_mod.UC_ERR_INSN_INVALID:
        return "breakpoint (ebreak) or unsupported instruction"
    return f"emulator error: {e}"
