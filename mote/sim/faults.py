"""Errors a simulated run can end with. Each message is one line naming the fault, the PC, the function
(from the ELF symbol table) and the layer the profiler was in."""

from __future__ import annotations

from mote.errors import MoteError


class SimulationError(MoteError):
    """The firmware did something a microcontroller would fault on, or did not finish."""

    def __init__(self, what: str, pc: int | None = None, function: str | None = None,
                 layer: str | None = None, *, machine: str = "rv32") -> None:
        self.what = what
        self.machine = machine  # the core, as the message names it (mote.sim.isa.Isa.name)
        self.pc = pc
        self.function = function
        self.layer = layer
        where = []
        if pc is not None:
            where.append(f"pc 0x{pc:08x}")
        if function:
            where.append(f"in {function}")
        if layer:
            where.append(f"({layer})")
        super().__init__(f"{machine} simulation: {what}" + (f" at {' '.join(where)}" if where else ""))


class InstructionLimitError(SimulationError):
    """The run exceeded its instruction limit (runaway firmware, or a limit set too low)."""


class MemoryAccessError(SimulationError):
    """A load, store or instruction fetch outside mapped memory, or against its permissions."""


class MisalignedAccessError(SimulationError):
    """A load or store whose address is not a multiple of its size."""


class IllegalInstructionError(SimulationError):
    """An instruction the rv32imc core does not implement."""


class TrapError(SimulationError):
    """Another exception: ecall, ebreak, or one this platform has no handler for."""


class StackOverflowError(SimulationError):
    """The stack grew past the bottom of its region (into the static data below it)."""


class ExitStatusError(SimulationError):
    """The firmware exited with a non-zero status (model_run reported an error)."""
