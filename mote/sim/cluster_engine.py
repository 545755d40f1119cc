"""The one Unicorn instance a cluster's cores run on (mote.sim.cluster), and the memories they share.

A Unicorn instance per core would translate the firmware's code once per core and pay the instance's
set-up once per core: for a short model that dominates the run (8 instances cost more than the 0.6 M
instructions of the anomaly-detection model). One instance for all cores shares its translated code; a
switch between cores costs one batch read and one batch write of the hart's registers (the ISA's
`core_regs`), and pointing the native hooks at the next core's counter (mote_count.c's indirect hooks
read their counter through one pointer, `Engine.slot`). Each core keeps its own counter, devices and
fault, as on an instance of its own; the device pages forward each access to the core running now.

Unicorn's own context save and restore would switch the registers too, but restoring a context makes the
emulator run slower afterwards (measured: 2.3x the emulation time of the keyword-spotting model on 8
cores), so it is used only for an ISA that lists no `core_regs`.
"""

from __future__ import annotations

import ctypes
from typing import Any

import unicorn as uc_mod
from unicorn.unicorn_py3 import unicorn as uc_impl

from mote.ints import round_up
from mote.sim.counting import native_hooks
from mote.sim.devices import ACCEL_BASE, DEVICE_BASE, DEVICE_BYTES
from mote.sim.dma_device import DMA_BASE, DMA_BYTES
from mote.sim.faults import SimulationError
from mote.sim.platform import LoadedFirmware
from mote.sim.run import PAGE, Run


class SharedMemory:
    """Flash, RAM and the L1 (if any) as host buffers, mapped into the cluster's instance."""

    def __init__(self, machine: LoadedFirmware) -> None:
        mem = machine.memory
        self.flash = ctypes.create_string_buffer(round_up(mem.flash_bytes, PAGE))
        self.ram = ctypes.create_string_buffer(round_up(mem.ram_bytes, PAGE))
        self.l1 = ctypes.create_string_buffer(round_up(mem.l1_bytes, PAGE)) if mem.l1_bytes else None

    def map(self, uc: uc_mod.Uc, machine: LoadedFirmware) -> None:
        mem = machine.memory
        uc.mem_map_ptr(mem.flash_base, len(self.flash), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_EXEC,
                       ctypes.addressof(self.flash))
        uc.mem_map_ptr(mem.ram_base, len(self.ram), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE,
                       ctypes.addressof(self.ram))
        if self.l1 is not None:
            uc.mem_map_ptr(mem.l1_base, len(self.l1), uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE,
                           ctypes.addressof(self.l1))


class HartRegisters:
    """One core's registers (the ISA's `core_regs`) while another core runs: 8-byte slots, read and written
    with one batch call each."""

    def __init__(self, regs: tuple[int, ...]) -> None:
        self.count = len(regs)
        self.ids = (ctypes.c_int32 * self.count)(*regs)
        self.values = (ctypes.c_uint64 * self.count)()
        base, size = ctypes.addressof(self.values), ctypes.sizeof(ctypes.c_uint64)
        self.pointers = (ctypes.c_void_p * self.count)(*(base + i * size for i in range(self.count)))

    def save(self, uc: uc_mod.Uc) -> None:
        self._check(uc_impl.uclib.uc_reg_read_batch(uc._uch, self.ids, self.pointers, self.count))

    def load(self, uc: uc_mod.Uc) -> None:
        self._check(uc_impl.uclib.uc_reg_write_batch(uc._uch, self.ids, self.pointers, self.count))

    @staticmethod
    def _check(status: int) -> None:
        if status != 0:
            raise SimulationError(f"cannot switch the cluster's cores (unicorn error {status})")


class Engine:
    """The instance every core runs on: the shared memories mapped once, the device pages and the hooks
    installed once, each forwarding to the core running now (`live`). `switch` saves the running core's
    registers and restores the next one's (a core's first run starts from registers at reset: zero)."""

    def __init__(self, shared: SharedMemory) -> None:
        self.shared = shared
        self.live: Run | None = None
        self.slot = ctypes.c_void_p(0)  # the counter state of the core running now (the native hooks')
        self.uc: uc_mod.Uc | None = None
        self.registers: dict[Run, HartRegisters] = {}  # each core's registers, saved or to load
        self.contexts: dict[Run, Any] = {}  # without `core_regs`: each core's Unicorn context
        self.reset: Any = None

    def build(self, first: Run) -> uc_mod.Uc:
        """Create the instance with `first` (core 0) live."""
        machine, isa, mem = first.m, first.isa, first.m.memory
        uc = uc_mod.Uc(isa.arch, isa.mode)
        uc.ctl_set_cpu_model(isa.cpu_model)
        self.shared.map(uc, machine)
        uc.mmio_map(DEVICE_BASE, DEVICE_BYTES, lambda *a: self._live()._device_read(*a), None,
                    lambda *a: self._live()._device_write(*a), None)
        for base, size in isa.system_pages:
            uc.mem_map(base, size, uc_mod.UC_PROT_READ | uc_mod.UC_PROT_WRITE)
        self.hooks = native_hooks(uc, first.counter, ctypes.addressof(self.slot), first.counts_memory,
                                  indirect=True)
        uc.hook_add(uc_mod.UC_HOOK_MEM_INVALID, lambda *a: self._live()._invalid_access(*a))
        uc.hook_add(uc_mod.UC_HOOK_INTR, lambda *a: self._live()._trap(*a))
        if machine.accelerator is not None:  # each core's own model of it, as on an instance of its own
            uc.mmio_map(ACCEL_BASE, DEVICE_BYTES, lambda *a: self._live().accel.read(*a), None,  # type: ignore[union-attr]
                        lambda *a: self._live().accel.write(*a), None)  # type: ignore[union-attr]
        if mem.dma:
            uc.mmio_map(DMA_BASE, DMA_BYTES, lambda *a: self._live().dma.read(*a), None,  # type: ignore[union-attr]
                        lambda *a: self._live().dma.write(*a), None)  # type: ignore[union-attr]
        if not isa.core_regs:
            self.reset = uc.context_save()
        self.uc = uc
        self.live = first
        self.slot.value = first.counter.user_data
        return uc

    def _live(self) -> Run:
        assert self.live is not None
        return self.live

    def switch(self, run: Run) -> None:
        """Make `run` the core running now: its registers, its counter, its devices."""
        live, uc = self.live, self.uc
        assert uc is not None
        if live is run:
            return
        regs = run.isa.core_regs
        if regs:
            if live is not None:
                self._registers(live, regs).save(uc)
            self._registers(run, regs).load(uc)
        else:
            if live is not None:
                self.contexts[live] = uc.context_save()
            uc.context_restore(self.contexts.get(run, self.reset))
        self.slot.value = run.counter.user_data
        self.live = run

    def _registers(self, run: Run, regs: tuple[int, ...]) -> HartRegisters:
        saved = self.registers.get(run)
        if saved is None:  # a core not run yet: its registers at reset, all zero (not read from Unicorn: with
            # the F extension still off, Unicorn's read of fcsr leaves its value undefined)
            saved = self.registers[run] = HartRegisters(regs)
        return saved
