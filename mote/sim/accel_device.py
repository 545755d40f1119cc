"""An accelerator as a memory-mapped peripheral of the virtual platform.

Its registers are 32-bit words at ACCEL_BASE + 4*i, in the order the accelerator declares them.
Writing a nonzero value to its start register runs its functional model on the emulated memory
at once; the status register then reads 1 (done), unless the model reported that it did not
finish, in which case it reads 0 forever and the driver times out. In timed mode the cost model's
cycles are added to the run: the CPU is taken to wait that long (its polling is counted as usual).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mote.sim.devices import DeviceState


class UnicornMemory:
    """The emulated MCU's memory, as the accelerator model sees it."""

    def __init__(self, uc: Any) -> None:
        self.uc = uc

    def read(self, address: int, size: int) -> bytes:
        return bytes(self.uc.mem_read(address, size))

    def write(self, address: int, data: bytes) -> None:
        self.uc.mem_write(address, bytes(data))


@dataclass
class AccelStats:
    jobs: int = 0
    cycles: int = 0  # the cost model's, whether or not timed
    by_layer: dict[int, int] = field(default_factory=dict)  # layer index -> cost-model cycles
    # every job in order: (layer open at its start or None, the instructions executed when it started, its
    # cycles), for the run's timeline (mote.targets.rv32.timeline); the instruction count is that of the
    # blocks entered, so it may run a few instructions ahead of the start store
    log: list[tuple[int | None, int, int]] = field(default_factory=list)
    # the counters at each job's start store (mote.sim.counting.Snapshot, exact like a profiler mark's), in the
    # order of `log`, when the machine takes them; and, once the run is over, the class counts at each
    # (`classes`): the timeline places a job at the exact cycle of its start from these
    snapshots: list[Any] = field(default_factory=list)
    classes: list[Any] = field(default_factory=list)

    def record(self, layer: int | None, instructions: int, cycles: int, snapshot: Any = None) -> None:
        self.jobs += 1
        self.cycles += cycles
        self.log.append((layer, instructions, cycles))
        if snapshot is not None:
            self.snapshots.append(snapshot)
        if layer is not None:
            self.by_layer[layer] = self.by_layer.get(layer, 0) + cycles


class AccelDevice:
    def __init__(self, accel: Any, devices: DeviceState) -> None:
        self.accel = accel
        self.devices = devices
        self.names = accel.registers
        self.values = [0] * len(self.names)
        self.start = self.names.index(accel.start_register)
        self.status = self.names.index(accel.status_register)
        self.done = True
        self.stats = AccelStats()
        self.error: Exception | None = None  # a functional model that raised: reported by the machine
        self.now: Callable[[], int] = lambda: 0  # the instructions executed so far (set by mote.sim.run)
        # the counters at the store being served, given its (offset, size, value) (set by mote.sim.run)
        self.snapshot: Callable[[int, int, int], Any] = lambda offset, size, value: None

    def read(self, uc: Any, offset: int, size: int, data: object) -> int:
        index = offset // 4
        if index == self.status:
            return 1 if self.done else 0
        return self.values[index] if index < len(self.values) else 0

    def write(self, uc: Any, offset: int, size: int, value: int, data: object) -> None:
        index = offset // 4
        if index >= len(self.values):
            return
        self.values[index] = value & 0xFFFFFFFF
        if index != self.start or value == 0:
            return
        registers = self.accel.model_registers(dict(zip(self.names, self.values)))  # signed ones as signed
        started = self.snapshot(offset, size, value)
        try:
            finished = self.accel.execute(registers, UnicornMemory(uc))
        except Exception as e:  # noqa: BLE001 - the author's model; the machine reports it with the layer
            self.error = e
            uc.emu_stop()
            return
        self.done = finished is not False
        self.stats.record(self.devices.open_layer, self.now(), int(self.accel.cost(registers)), started)

