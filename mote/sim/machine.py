"""The virtual platform: a Unicorn core (RV32, or an Arm M-profile one: mote.sim.isa) with flash, RAM and a
device page (mote/sim/devices.py).

Counting is exact and fast: a native block hook (mote/sim/counting.py) counts block executions and
taken exits; nothing runs in Python per instruction. Python runs only on rare events: device
register writes (console, profiler marks, exit) and faults.

Misaligned loads and stores: Unicorn's RISC-V core (QEMU 5) performs them silently, as a core with
hardware misalignment support would. Most MCU cores trap instead, so with `check_alignment` (the
default) a native memory hook checks every load and store and stops the run on the first misaligned
one. That hook makes memory accesses slower (see the report's MIPS); without it misaligned
accesses go undetected.
"""

from __future__ import annotations

from collections.abc import Callable

import unicorn as uc_mod

from mote.sim.cluster import Cluster, ClusterExecution
from mote.sim.platform import Execution, LoadedFirmware, MemoryMap
from mote.sim.run import Run

DEFAULT_INSTRUCTION_LIMIT = 2_000_000_000

__all__ = ["DEFAULT_INSTRUCTION_LIMIT", "Execution", "Machine", "MemoryMap"]


class Machine(LoadedFirmware):
    """Runs one firmware ELF; every `run` starts from a fresh core and freshly loaded memory.

        Machine(elf, memory_map, check_alignment, accelerator, host_cc=mote.targets.host.find_cc())
        Machine(elf, memory_map, host_cc=..., isa=mote.sim.isa.cortex_m("cortex-m4"))
    """

    def run(self, writes: dict[str, bytes] | None = None, reads: tuple[str, ...] = (),
            instruction_limit: int = DEFAULT_INSTRUCTION_LIMIT,
            instrument: Callable[[uc_mod.Uc], None] | None = None,
            io_inputs: tuple[bytes, ...] = (), io_output_sizes: tuple[int, ...] = (),
            io_stream: tuple[tuple[bytes, ...], ...] = (), resets: frozenset[int] = frozenset()) -> Execution:
        """Load the firmware, write `writes` ({symbol: bytes}) into memory, run to the exit store and
        return the counters and the bytes of the symbols in `reads`. Raises a SimulationError.

        `io_inputs[i]` is written wherever the firmware's INPUT store for input i points, and
        `io_output_sizes[i]` bytes are read at its OUTPUT store for output i (model I/O in place).

        `instrument`, if given, gets the Unicorn instance before the run starts, to add hooks of its
        own (the tests check the native counts against a per-instruction trace this way).

        `io_stream` holds a stream's inputs frame by frame, in place of `io_inputs`, for firmware that
        reads Reg.FRAME before each frame (a model with state); the frames in `resets` start with
        model_reset(). Execution.io_frames then holds each frame's outputs."""
        run = Run(self, writes or {}, instruction_limit, io_inputs, io_output_sizes, io_stream, resets)
        if instrument is not None:
            instrument(run.uc)
        return run.go(reads)


    def run_cluster(self, cores: int, writes: dict[str, bytes] | None = None, reads: tuple[str, ...] = (),
                    instruction_limit: int = DEFAULT_INSTRUCTION_LIMIT, io_inputs: tuple[bytes, ...] = (),
                    io_output_sizes: tuple[int, ...] = ()) -> ClusterExecution:
        """Run the firmware on `cores` cores sharing flash and RAM (mote.sim.cluster): core 0's Execution
        and every core's trace of barriers, for the timing (mote.sim.cluster_clock). Raises a
        SimulationError naming the core that faulted. `instruction_limit` is each core's."""
        return Cluster(self, cores, writes or {}, instruction_limit, io_inputs, io_output_sizes).go(reads)
