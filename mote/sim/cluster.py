"""A cluster on the virtual platform: N cores (harts) running one firmware over shared memories.

Each core has its own native counter (mote.sim.counting), hence its own exact instruction count, its own
registers and its own devices' state; all of them run on one Unicorn instance (`Engine`), which switches
registers and counter between cores, so the cores share one memory and one cache of translated code: a
store by one core is what the others load, and the code is translated once, not once per core (simulating
8 cores then costs about what one core's run of the same instructions does). The device page gives each
core its id (Reg.CORE_ID) and a barrier (Reg.BARRIER): a core that writes it stops until every core has.

The schedule is deterministic: each round runs core 0, then core 1, ..., each until it writes the
barrier (or core 0 writes the exit register); when all have arrived the barrier completes and the
next round starts. Between two barriers the cores touch disjoint data (the fork-join runtime's
contract: mote_cluster.c), so what each computes, and every count, does not depend on the order in
which they run, nor on how many there are. Timing is replayed afterwards (mote.sim.cluster_clock).

The cluster DMA (mote.sim.dma_device) is one engine, programmed by core 0 alone: the generated code has
core 0 start and wait for every tile's copies around the forks of the tiles' compute, and a DMA register
access by any other core is a fault. Core 0's trace records how many barriers it had arrived at before
each DMA event, so that the timing replay runs the engine on core 0's clock, barrier waits included, and
its stalls delay core 0 on the critical path (mote.sim.cluster_clock).

A core stopped at its barrier store and resumed from the next instruction re-enters the rest of that
block as a new block: its instructions are then counted twice by the block hook, and each core keeps
them (`carry`) to subtract from every later snapshot, as a snapshot's own tail is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import unicorn as uc_mod

from mote.sim.cluster_engine import Engine, SharedMemory
from mote.sim.counting import Snapshot
from mote.sim.decode import Insn
from mote.sim.devices import STACK_FILL, DeviceState, Reg
from mote.sim.faults import SimulationError
from mote.sim.platform import Execution, LoadedFirmware
from mote.sim.run import Run
from mote.sim.uc_errors import error_class, error_text


@dataclass
class CoreTrace:
    """What one core did: its counters at each barrier store it made, in order, and at the end; for core
    0 also how many barriers it had passed at each profiler mark, and the layer open at each barrier."""

    core: int
    arrivals: list[Snapshot] = field(default_factory=list)
    end: Snapshot | None = None
    mark_barriers: list[int] = field(default_factory=list)
    barrier_layers: list[int | None] = field(default_factory=list)
    blocks: dict[int, list[Insn]] = field(default_factory=dict)  # every block it ran, decoded
    dma_barriers: list[int] = field(default_factory=list)  # core 0: barriers arrived at before each DMA event


@dataclass
class ClusterExecution:
    """A finished cluster run: core 0's Execution (outputs, marks, exit) and every core's trace."""

    execution: Execution
    traces: list[CoreTrace]
    barriers: int  # completed barriers
    seconds: float
    stack_used: list[int] = field(default_factory=list)  # each core's high-water mark in its own stack


class CoreRun(Run):
    """One core of the cluster: a Run over the shared memories that stops at each barrier store. Every core
    shares core 0's devices (console, profiler marks, exit), so a fault names the layer core 0 is in."""

    def __init__(self, machine: LoadedFirmware, engine: Engine, core: int, cores: int,
                 writes: dict[str, bytes], instruction_limit: int, io_inputs: tuple[bytes, ...],
                 io_output_sizes: tuple[int, ...], devices: DeviceState | None) -> None:
        self.engine = engine
        self.core = core
        self.cores = cores
        self.trace = CoreTrace(core)
        self.carry: tuple[Insn, ...] = ()  # instructions counted twice by resumes (module docstring)
        self.stopped_tail: tuple[Insn, ...] = ()
        self.resume_pc = 0
        self.waiting = False
        self.started = False
        super().__init__(machine, writes, instruction_limit, io_inputs, io_output_sizes)
        if devices is not None:
            self.devices = devices
        if self.dma is not None and core != 0:
            self.dma.refused = f"core {core}: only core 0 programs the cluster DMA"

    def _engine(self, writes: dict[str, bytes]) -> uc_mod.Uc:
        if self.core != 0:
            assert self.engine.uc is not None
            return self.engine.uc
        uc = self.engine.build(self)
        self._load(uc, writes)  # one image in the shared memories
        return uc

    def _device_read(self, uc: uc_mod.Uc, offset: int, size: int, data: object) -> int:
        if offset == Reg.CORE_ID:
            return self.core
        if offset == Reg.NUM_CORES:
            return self.cores
        return super()._device_read(uc, offset, size, data)

    def _snapshot(self, tail: tuple[Insn, ...]) -> Snapshot:
        return self.counter.snapshot(tail + self.carry, memory=self.counts_memory)

    def _dma_snapshot(self, offset: int, size: int, value: int) -> Snapshot:
        self.trace.dma_barriers.append(len(self.trace.arrivals))
        return super()._dma_snapshot(offset, size, value)

    def _device_write(self, uc: uc_mod.Uc, offset: int, size: int, value: int, data: object) -> None:
        marks = len(self.devices.marks)
        super()._device_write(uc, offset, size, value, data)
        if len(self.devices.marks) > marks:
            self.trace.mark_barriers.append(len(self.trace.arrivals))

    def _barrier(self, snap: Snapshot) -> None:
        self.trace.arrivals.append(snap)
        self.trace.barrier_layers.append(self.devices.open_layer)
        self.waiting = True
        self.stopped_tail = snap.tail[:len(snap.tail) - len(self.carry)]
        # Unicorn stops with the PC at the store: the core resumes after it
        current = self.counter.current()  # the block the store was just located in
        if self._last_store is None or not self.exact or current is None or current[0] != self._last_store[0]:
            self._fail(SimulationError, "barrier store not located in its block", self._pc())
            return
        block, _, index = self._last_store
        store = self.m.decode(block, current[1])[index]
        self.resume_pc = store.addr + store.size
        self.uc.emu_stop()

    def step(self) -> None:
        """Run from where the core stopped to its next barrier store, exit store or fault."""
        pc = self.resume_pc if self.started else self.m.image.entry
        if self.started:
            # the rest of the block after the store runs as a block of its own, counted again
            self.carry = self.carry + self.stopped_tail
            self.counter.state.cur = -1  # and its entry is no taken exit of the block before
        self.started = True
        self.waiting = False
        self.stopped_tail = ()
        self.engine.switch(self)
        try:
            self.uc.emu_start(pc, 0)
        except uc_mod.UcError as e:
            if self.fault is None:
                self._fail(error_class(e.errno), error_text(e), self._pc())

    @property
    def stopped(self) -> bool:
        """Faulted, or stopped by its counter (instruction limit, misaligned access)."""
        return self.fault is not None or self.counter.state.stop_reason != 0


class Cluster:
    """Runs one firmware on `cores` cores, all from the reset entry (the module docstring)."""

    def __init__(self, machine: LoadedFirmware, cores: int, writes: dict[str, bytes], instruction_limit: int,
                 io_inputs: tuple[bytes, ...], io_output_sizes: tuple[int, ...]) -> None:
        self.machine = machine
        self.shared = SharedMemory(machine)
        self.engine = Engine(self.shared)
        first = CoreRun(machine, self.engine, 0, cores, writes, instruction_limit, io_inputs, io_output_sizes, None)
        self.cores = [first, *(CoreRun(machine, self.engine, k, cores, {}, instruction_limit, (), (), first.devices)
                               for k in range(1, cores))]

    def go(self, reads: tuple[str, ...]) -> ClusterExecution:
        start = time.perf_counter()
        barriers = 0
        try:
            while True:
                for core in self.cores:
                    core.step()
                    exited = core.core == 0 and self.cores[0].exit_snapshot is not None
                    if core.stopped or exited:
                        return self._finish(core, reads, time.perf_counter() - start, barriers)
                    if not core.waiting:
                        pc = core._pc()
                        raise SimulationError(f"core {core.core}: stopped before the barrier or the exit", pc,
                                              self.machine.image.function_at(pc), core.devices.layer_context())
                barriers += 1
        finally:
            for core in self.cores:
                core.counter.close()

    def _finish(self, stopped: CoreRun, reads: tuple[str, ...], seconds: float, barriers: int) -> ClusterExecution:
        """Core 0's Execution and every core's trace; a fault on any core raises, naming the core."""
        traces = []
        for core in self.cores:
            pending = core.stopped_tail if core.waiting else ()  # a core waiting at a barrier has not run these
            core.trace.end = core.exit_snapshot or core.counter.snapshot(pending + core.carry,
                                                                         memory=core.counts_memory)
            core.trace.blocks = {int(r["addr"]): self.machine.decode(int(r["addr"]), int(r["ninsn"]))
                                 for r in core.counter.table()}
            traces.append(core.trace)
        try:
            execution = stopped._finish(reads if stopped.core == 0 else (), seconds)
        except SimulationError as e:
            if e.what.startswith("core "):
                raise
            raise type(e)(f"core {stopped.core}: {e.what}", e.pc, e.function, e.layer) from None
        return ClusterExecution(execution, traces, barriers, seconds, self._stacks())

    def _stacks(self) -> list[int]:
        """Each core's stack high-water mark: core k's stack is the k-th slice of the stack region from the
        top (mote_vp.h's MOTE_VP_CORE_STACK_BYTES each). An overflow into the next core's slice counts as
        that core's use: painting cannot tell them apart."""
        bottom, top = self.machine.stack
        size = (top - bottom) // len(self.cores)
        base = self.machine.memory.ram_base
        words = np.frombuffer(self.shared.ram, dtype="<u4", count=(top - base) // 4)
        used = []
        for k in range(len(self.cores)):
            high, low = top - k * size, top - (k + 1) * size
            region = words[(low - base) // 4:(high - base) // 4]
            touched = np.flatnonzero(region != STACK_FILL)
            used.append(0 if touched.size == 0 else (high - low) - int(touched[0]) * 4)
        return used
