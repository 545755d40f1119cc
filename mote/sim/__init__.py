"""mote's virtual platform: an RV32IMC microcontroller simulated with Unicorn, with exact instruction
counts from a native block hook, a per-layer profiler, a cycle model and fault reporting.

The firmware side is mote.targets.rv32; the memory map and devices are in mote.sim.devices."""

from mote.sim.cycles import CoreModel
from mote.sim.faults import (
    ExitStatusError,
    IllegalInstructionError,
    InstructionLimitError,
    MemoryAccessError,
    MisalignedAccessError,
    SimulationError,
    StackOverflowError,
    TrapError,
)
from mote.sim.results import LayerProfile, SimResult

__all__ = ["CoreModel", "ExitStatusError", "IllegalInstructionError", "InstructionLimitError", "LayerProfile",
           "MemoryAccessError", "MisalignedAccessError", "SimResult", "SimulationError", "StackOverflowError",
           "TrapError"]
