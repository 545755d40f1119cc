"""One run of the virtual platform: a fresh Unicorn core over a loaded firmware (mote.sim.platform), its
native counter, its devices, and the first fault, turned into an Execution or a SimulationError. The
same for every instruction set: the firmware's Isa record (mote.sim.isa) says what differs."""

from __future__ import annotations

import time

import numpy as np
import unicorn as uc_mod
from unicorn.unicorn_py3 import unicorn as uc_impl

from mote.ints import round_up
from mote.sim import counting
from mote.sim.accel_device import AccelDevice
from mote.sim.counting import ClassTally, Counter, Snapshot, native_hooks
from mote.sim.decode import Insn
from mote.sim.devices import (
    ACCEL_BASE,
    DEVICE_BASE,
    DEVICE_BYTES,
    MARKS,
    STACK_FILL,
    DeviceState,
    FrameCommand,
    Mark,
    Reg,
)
from mote.sim.dma_device import DMA_BASE, DMA_BYTES, DmaDevice
from mote.sim.faults import (
    ExitStatusError,
    IllegalInstructionError,
    InstructionLimitError,
    MemoryAccessError,
    MisalignedAccessError,
    SimulationError,
    StackOverflowError,
)
from mote.sim.platform import Execution, LoadedFirmware
from mote.sim.rtl_device import RtlDevice, make_accel_device
from mote.sim.uc_errors import ACCESS, error_class, error_text

PAGE = 0x1000


class Run:
    """The state of one run: the Unicorn instance, the counter, the devices, the first fault."""

    def __init__(self, machine: LoadedFirmware, writes: dict[str, bytes], instruction_limit: int,
                 io_inputs: tuple[bytes, ...], io_output_sizes: tuple[int, ...],
                 io_stream: tuple[tuple[bytes, ...], ...] = (), resets: frozenset[int] = frozenset()) -> None:
        self.m = machine
        self.io_inputs = io_stream[0] if io_stream else io_inputs
        self.io_output_sizes = io_output_sizes
        self.io_stream = io_stream  # a stream's inputs, frame by frame (Reg.FRAME reads step through them)
        self.resets = resets  # the frames that start with model_reset()
        mem = machine.memory
        self.isa = isa = machine.isa
        self.counter = Counter(uc_impl.uclib, isa.pc_reg, machine.host_cc)
        self.counter.state.limit = instruction_limit
        self.counter.state.length_rule = isa.length_rule
        self.counter.state.it_regid = isa.it_state_reg
        self.counter.state.align_rule = isa.align_rule
        self.limit = instruction_limit
        # The memory hook checks alignment and, riding along at almost no cost, counts the loads and
        # stores that hit flash and RAM (MEMORY_REGIONS order) for the energy model.
        self.counts_memory = machine.check_alignment
        if machine.check_alignment:
            self.counter.count_regions([(mem.flash_base, mem.flash_base + mem.flash_bytes),
                                        (mem.ram_base, mem.ram_base + mem.ram_bytes),
                                        (mem.l1_base, mem.l1_base + mem.l1_bytes)])
        self.devices = DeviceState()
        self.accel: AccelDevice | RtlDevice | None = None
        if machine.accelerator is not None:  # its Python model, or its RTL (mote/sim/rtl_device.py)
            self.accel = make_accel_device(machine.accelerator, self.devices)
            self.accel.now = lambda: int(self.counter.state.insns)
            self.accel.snapshot = self._accel_snapshot
        self.dma: DmaDevice | None = None
        if mem.dma:
            self.dma = DmaDevice(memory_regions(machine), self._dma_copy, self._dma_snapshot,
                                 lambda what: self._fail(MemoryAccessError, what, self._pc()))
        self._native_hooks: list[object] = []
        self.uc = self._engine(writes)
        self.fault: SimulationError | None = None
        self.exit_snapshot: Snapshot | None = None
        self.exact = True
        self._last_store: tuple[int, int, int] | None = None  # (block, block entry, index) of the last mark

    def _engine(self, writes: dict[str, bytes]) -> uc_mod.Uc:
        """A fresh Unicorn instance of this run's own: memories mapped and loaded, devices and hooks on this run."""
        isa = self.isa
        uc = uc_mod.Uc(isa.arch, isa.mode)
        uc.ctl_set_cpu_model(isa.cpu_model)
        self._map_memory(uc)
        uc.mmio_map(DEVICE_BASE, DEVICE_BYTES, self._device_read, None, self._device_write, None)
        for base, size in isa.system_pages:
            uc.mem_map(base, size, uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE)
        self._load(uc, writes)
        self._native_hooks = native_hooks(uc, self.counter, self.counter.user_data, self.counts_memory)
        uc.hook_add(uc_mod.UC_HOOK_MEM_INVALID, self._invalid_access)
        uc.hook_add(uc_mod.UC_HOOK_INTR, self._trap)
        if self.accel is not None:
            uc.mmio_map(ACCEL_BASE, DEVICE_BYTES, self.accel.read, None, self.accel.write, None)
        if self.dma is not None:
            uc.mmio_map(DMA_BASE, DMA_BYTES, self.dma.read, None, self.dma.write, None)
        return uc

    def _map_memory(self, uc: uc_mod.Uc) -> None:
        """Flash (read/execute), RAM and the L1, if any (read/write), each the core's own."""
        mem = self.m.memory
        uc.mem_map(mem.flash_base, round_up(mem.flash_bytes, PAGE), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_EXEC)
        uc.mem_map(mem.ram_base, round_up(mem.ram_bytes, PAGE), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE)
        if mem.l1_bytes:
            uc.mem_map(mem.l1_base, round_up(mem.l1_bytes, PAGE), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE)

    def _load(self, uc: uc_mod.Uc, writes: dict[str, bytes]) -> None:
        """The firmware image, the painted stack and `writes` ({symbol: bytes}) into memory."""
        machine, mem = self.m, self.m.memory
        uc.mem_write(mem.flash_base, bytes(machine.flash))
        for seg in machine.image.segments:
            if mem.ram_base <= seg.addr < mem.ram_base + mem.ram_bytes:
                uc.mem_write(seg.addr, seg.data)
        top = machine.stack[1]
        uc.mem_write(machine.painted, STACK_FILL.to_bytes(4, "little") * ((top - machine.painted) // 4))
        for name, data in writes.items():
            addr, size = machine.image.symbol(name)
            if len(data) > size:
                raise SimulationError(f"{len(data)} bytes do not fit the firmware's {name} ({size} bytes)")
            uc.mem_write(addr, data)

    # --- where things happen -------------------------------------------------------------------------

    def _pc(self) -> int:
        return int(self.uc.reg_read(self.isa.pc_reg))

    def _error(self, cls: type[SimulationError], what: str, pc: int | None) -> SimulationError:
        """A fault at `pc`, with its function and layer, named for this core."""
        function = self.m.image.function_at(pc) if pc is not None else None
        return cls(what, pc, function, self.devices.layer_context(), machine=self.isa.name)

    def _fail(self, cls: type[SimulationError], what: str, pc: int | None) -> None:
        """Record the first fault (with its function and layer) and stop the core."""
        if self.fault is None:
            self.fault = self._error(cls, what, pc)
        self.uc.emu_stop()

    # --- devices --------------------------------------------------------------------------------------

    def _device_read(self, uc: uc_mod.Uc, offset: int, size: int, data: object) -> int:
        if offset == Reg.NUM_CORES:
            return 1
        if offset != Reg.FRAME:
            return 0  # CORE_ID: the one core is core 0
        dev, frame = self.devices, len(self.devices.frames)
        if frame >= len(self.io_stream):
            return int(FrameCommand.END)
        self.io_inputs = self.io_stream[frame]
        dev.frames.append({})
        return int(FrameCommand.RESET if frame in self.resets else FrameCommand.RUN)

    def _device_write(self, uc: uc_mod.Uc, offset: int, size: int, value: int, data: object) -> None:
        try:
            reg = Reg(offset)
        except ValueError:
            self._fail(MemoryAccessError, f"store to unknown device register 0x{DEVICE_BASE + offset:08x}",
                       None)
            return
        dev = self.devices
        if reg is Reg.CONSOLE:
            dev.console.append(value & 0xFF)
            return
        if reg in (Reg.IO_INDEX, Reg.INPUT, Reg.OUTPUT):
            self._model_io(reg, value)
            return
        snap = self._snapshot(self._tail(offset, size, value))
        if reg is Reg.BARRIER:
            self._barrier(snap)
            return
        if reg is Reg.EXIT:
            dev.exit_status = value
            self.exit_snapshot = snap
            uc.emu_stop()
            return
        if reg in MARKS:
            stats = self.accel.stats if self.accel is not None else None
            dev.marks.append(Mark(reg, value, snap, stats.cycles if stats else 0, stats.jobs if stats else 0))
            if reg is Reg.LAYER_BEGIN:
                dev.open_layer = value
            elif reg is Reg.LAYER_END:
                dev.open_layer, dev.last_layer = None, value

    def _dma_copy(self, dst: int, src: int, n: int) -> None:
        self.uc.mem_write(dst, bytes(self.uc.mem_read(src, n)))

    def _accel_snapshot(self, offset: int, size: int, value: int) -> Snapshot | None:
        """The counters at the store that starts an accelerator job (as exact as a profiler mark's); None when
        that store is not located in its block (the timeline then interpolates; the run's marks stay exact)."""
        before, self.exact = self.exact, True
        tail = self._tail(offset, size, value, ACCEL_BASE)
        located, self.exact = self.exact, before
        return self._snapshot(tail) if located else None

    def _dma_snapshot(self, offset: int, size: int, value: int) -> Snapshot:
        return self._snapshot(self._tail(offset, size, value, DMA_BASE))

    def _snapshot(self, tail: tuple[Insn, ...]) -> Snapshot:
        """The counters now, less `tail` (the current block's instructions not yet executed)."""
        return self.counter.snapshot(tail, memory=self.counts_memory)

    def _barrier(self, snap: Snapshot) -> None:
        """A barrier store: with one core, every core has arrived; nothing waits (mote.sim.cluster)."""

    def _model_io(self, reg: Reg, value: int) -> None:
        dev = self.devices
        if reg is Reg.IO_INDEX:
            dev.io_index = value
            return
        sizes = [len(b) for b in self.io_inputs] if reg is Reg.INPUT else list(self.io_output_sizes)
        if dev.io_index >= len(sizes):
            self._fail(SimulationError, f"the firmware names model {reg.name.lower()} {dev.io_index}, "
                       f"the simulator has {len(sizes)}", None)
            return
        try:
            if reg is Reg.INPUT:
                self.uc.mem_write(value, self.io_inputs[dev.io_index])
            else:
                dev.outputs[dev.io_index] = bytes(self.uc.mem_read(value, sizes[dev.io_index]))
                if dev.frames:
                    dev.frames[-1][dev.io_index] = dev.outputs[dev.io_index]
        except uc_mod.UcError:
            self._fail(MemoryAccessError, f"model {reg.name.lower()} {dev.io_index} buffer at 0x{value:08x} "
                       "is not in mapped memory", None)

    def _tail(self, offset: int, size: int, value: int, base: int = DEVICE_BASE) -> tuple[Insn, ...]:
        """The instructions of the current block after the store that wrote this device register (or,
        with the memory hook, the load or store that accessed it)."""
        current = self.counter.current()
        if current is None:
            self.exact = False
            return ()
        block, ninsn = current
        insns = self.m.decode(block, ninsn)
        entry = int(self.counter.state.insns)
        after = self._last_store[2] if self._last_store and self._last_store[:2] == (block, entry) else -1
        index = self._store_index(insns, base + offset, size, value, after)
        if index is None:
            self.exact = False
            return ()
        self._last_store = (block, entry, index)
        return tuple(insns[index + 1:])

    def _store_index(self, insns: list[Insn], addr: int, size: int, value: int, after: int) -> int | None:
        """Which store of the block wrote `value` to `addr`.

        With the memory hook installed Unicorn keeps the PC exact at memory accesses, so it says.
        Without it the PC is the block's start, and the store is found from the registers, which are
        exact at the access: the first store after the previous match in this same execution of the
        block whose address and data agree."""
        if self.m.check_alignment:
            pc = self._pc()
            return next((i for i, insn in enumerate(insns) if insn.addr == pc), None)
        assert self.isa.regs is not None
        regs = self.isa.regs(self.uc)
        mask = (1 << (8 * size)) - 1
        for i, insn in enumerate(insns):
            s = insn.store
            if i <= after or s is None or s.width != size:
                continue
            if (regs[s.rs1] + s.imm) & 0xFFFFFFFF == addr and regs[s.rs2] & mask == value & mask:
                return i
        return None

    # --- faults ---------------------------------------------------------------------------------------

    def _invalid_access(self, uc: uc_mod.Uc, access: int, address: int, size: int, value: int,
                        data: object) -> bool:
        what, kind = ACCESS.get(access, ("invalid memory access at address", "access"))
        pc = self._pc()
        if kind == "fetch":
            # The PC is the bad target; name where the jump came from instead.
            block = self.counter.current_block()
            origin = self.m.image.function_at(block) if block is not None else None
            what = f"{what} 0x{address:08x}" + (f" (jumped to from {origin})" if origin else "")
        else:
            what = f"{what} 0x{address:08x} ({size}-byte {kind})"
        self._fail(MemoryAccessError, what, pc)
        return False

    def _trap(self, uc: uc_mod.Uc, cause: int, data: object) -> None:
        assert self.isa.trap is not None
        cls, what, pc = self.isa.trap(cause, self._pc())
        self._fail(cls, what, pc)

    # --- running --------------------------------------------------------------------------------------

    def go(self, reads: tuple[str, ...]) -> Execution:
        start = time.perf_counter()
        try:
            try:
                self.uc.emu_start(self.isa.entry(self.m.image.entry), 0)
            except uc_mod.UcError as e:
                if self.fault is None:
                    self._fail(error_class(e.errno), error_text(e), self._pc())
            return self._finish(reads, time.perf_counter() - start)
        finally:
            self.counter.close()

    def _finish(self, reads: tuple[str, ...], seconds: float) -> Execution:
        s = self.counter.state
        if s.stop_reason == counting.STOP_MISALIGNED and self.fault is None:
            kind = "store" if s.fault_write else "load"
            self.fault = self._error(MisalignedAccessError,
                                     f"misaligned {s.fault_size}-byte {kind} at address 0x{s.fault_addr:08x}",
                                     s.fault_pc)
        if s.stop_reason == counting.STOP_LIMIT and self.fault is None:
            self.fault = self._error(InstructionLimitError, f"instruction limit of {self.limit:,} exceeded",
                                     self._pc())
        stack_used = self._stack_used()
        bottom, top = self.m.stack
        if stack_used > top - bottom:
            # First: it corrupts the data below the stack, so whatever failed after is likely its effect.
            then = f"; the run then failed: {self.fault.what}" if self.fault else ""
            raise StackOverflowError(f"stack overflow: the firmware used at least {stack_used} bytes of stack, "
                                     f"more than its {top - bottom}-byte region; give it a larger stack{then}",
                                     machine=self.isa.name)
        if self.fault is not None:
            raise self.fault
        if self.accel is not None and self.accel.error is not None:
            raise self._error(SimulationError,
                              f"the {self.m.accelerator.name} accelerator model failed: {self.accel.error}", self._pc())
        if self.exit_snapshot is None or self.devices.exit_status is None:
            raise self._error(SimulationError, "the firmware stopped without writing the exit register", self._pc())
        status = self.devices.exit_status
        console = self.devices.console.decode("utf-8", "replace")
        if status != 0:
            detail = f": {console.strip().splitlines()[-1]}" if console.strip() else ""
            raise ExitStatusError(f"the firmware exited with status {status}{detail}", machine=self.isa.name)
        blocks = {}
        for row in self.counter.table():
            addr = int(row["addr"])
            blocks[addr] = self.m.decode(addr, int(row["ninsn"]))
        self._check_implemented(blocks)
        tally = ClassTally(blocks)
        marks = [(mk, mk.snapshot.instructions, tally.classes(mk.snapshot)) for mk in self.devices.marks]
        dma_log = self.dma.log if self.dma is not None else None
        dma_classes = [tally.classes(e.snapshot) for e in dma_log.events] if dma_log is not None else []
        if self.accel is not None:
            self.accel.stats.classes = [tally.classes(s) for s in self.accel.stats.snapshots]
        outputs = {}
        for name in reads:
            addr, size = self.m.image.symbol(name)
            outputs[name] = bytes(self.uc.mem_read(addr, size))
        snap = self.exit_snapshot
        return Execution(status, console, snap.instructions, tally.classes(snap), marks, stack_used, seconds,
                         outputs, dict(self.devices.outputs), list(self.devices.frames), self.exact,
                         self.accel.stats if self.accel is not None else None, snap, dma_log, dma_classes)

    def _check_implemented(self, blocks: dict[int, list[Insn]]) -> None:
        """Unicorn's Cortex-M0 model runs Armv7-M code too; an instruction the core lacks is a fault, found
        here, after the run, among the instructions that executed."""
        if self.isa.illegal is None:
            return
        for insns in blocks.values():
            for insn in insns:
                why = self.isa.illegal(insn, self.m.code(insn))
                if why is not None:
                    raise self._error(IllegalInstructionError, why, insn.addr)

    def _stack_used(self) -> int:
        """High-water mark: from the top of RAM down to the lowest painted word that was overwritten.

        Painting can only see words that were written: a frame that reserves space it never writes,
        or an overflow that jumps over all of the free RAM into static data, goes unseen."""
        top = self.m.stack[1]
        words = np.frombuffer(bytes(self.uc.mem_read(self.m.painted, top - self.m.painted)), dtype="<u4")
        touched = np.flatnonzero(words != STACK_FILL)
        return 0 if touched.size == 0 else (top - self.m.painted) - int(touched[0]) * 4


def memory_regions(machine: LoadedFirmware) -> dict[str, tuple[int, int]]:
    """Each memory kind the DMA moves between: its [low, high) addresses."""
    mem = machine.memory
    return {"flash": (mem.flash_base, mem.flash_base + mem.flash_bytes),
            "ram": (mem.ram_base, mem.ram_base + mem.ram_bytes),
            "l1": (mem.l1_base, mem.l1_base + mem.l1_bytes)}
