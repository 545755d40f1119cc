"""An RTL accelerator as the virtual platform's memory-mapped device (docs/rtl.md).

The driver's register writes at ACCEL_BASE + 4*i go to the Verilated design's register port (one
clock each); the status register is read from the design. Writing a nonzero value to the start
register clocks the design until it drops `busy` (the CPU is taken to wait meanwhile, as in timed
mode), its memory requests served by Unicorn's own uc_mem_read / uc_mem_write, so no Python runs per
cycle. The cycles from the start write to idle are the job's accelerator cycles (AccelStats.cycles);
the accelerator's cost model is evaluated beside them (`model_cycles`, `mac_cycles`) so a run reports
both, per layer too. A failed memory access or a hung design stops the run with one line.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from unicorn.unicorn_py3 import unicorn as uc_impl

from mote.accel.rtl import RtlError, is_rtl, rtl_library
from mote.accel.rtl.bridge import RtlModel
from mote.sim.accel_device import AccelDevice, AccelStats
from mote.sim.devices import DeviceState


@dataclass
class RtlStats(AccelStats):
    """AccelStats whose `cycles` are the RTL's, with the cost model's beside them."""

    model_cycles: int = 0  # the accelerator's cost() for the same jobs
    mac_cycles: int | None = None  # its mac_cost(), when it declares one (QVanilla's cycles-per-MAC model)
    rtl_seconds: float = 0.0  # host wall-clock time spent clocking the design
    rtl_cpu_seconds: float = 0.0  # host CPU time of this process meanwhile (steadier on a loaded machine)
    model_by_layer: dict[int, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        layers = sorted(self.by_layer)
        return {"rtl_cycles": self.cycles, "cost_model_cycles": self.model_cycles, "mac_model_cycles": self.mac_cycles,
                "jobs": self.jobs, "rtl_seconds": round(self.rtl_seconds, 4),
                "rtl_cpu_seconds": round(self.rtl_cpu_seconds, 4),
                "layers": {str(i): {"rtl_cycles": self.by_layer[i], "cost_model_cycles": self.model_by_layer.get(i, 0)}
                           for i in layers}}


def _native(function: Any) -> int:
    return int(ctypes.cast(function, ctypes.c_void_p).value or 0)


class RtlDevice:
    def __init__(self, accel: Any, devices: DeviceState) -> None:
        self.accel = accel
        self.devices = devices
        self.names = accel.registers
        self.start = self.names.index(accel.start_register)
        self.status = self.names.index(accel.status_register)
        self.values = [0] * len(self.names)
        self.model = RtlModel(rtl_library(accel))
        self.stats = RtlStats(mac_cycles=0 if hasattr(accel, "mac_cost") else None)
        self.error: Exception | None = None
        self._port: tuple | None = None
        self.now: Callable[[], int] = lambda: 0  # the instructions executed so far (set by mote.sim.run)
        self.snapshot: Callable[[int, int, int], Any] = lambda offset, size, value: None  # as AccelDevice's

    def _memory_port(self, uc: Any) -> tuple:
        if self._port is None:
            lib = uc_impl.uclib
            self._port = (_native(lib.uc_mem_read), _native(lib.uc_mem_write), uc._uch)
        return self._port

    def read(self, uc: Any, offset: int, size: int, data: object) -> int:
        index = offset // 4
        return self.model.read_register(index) if index < len(self.names) else 0

    def write(self, uc: Any, offset: int, size: int, value: int, data: object) -> None:
        index = offset // 4
        if index >= len(self.names) or self.error is not None:
            return
        self.values[index] = value & 0xFFFFFFFF
        port = self._memory_port(uc)
        try:
            self.model.write_register(index, value, port)
            if index != self.start or value == 0:
                return
            started = self.snapshot(offset, size, value)
            began, cpu = time.perf_counter(), time.process_time()
            cycles = 1 + self.model.run(port, self.accel.rtl_cycle_limit)
            self.stats.rtl_seconds += time.perf_counter() - began
            self.stats.rtl_cpu_seconds += time.process_time() - cpu
        except RtlError as e:
            self.error = e
            uc.emu_stop()
            return
        self._count(cycles, started)

    def _count(self, cycles: int, started: Any = None) -> None:
        registers = self.accel.model_registers(dict(zip(self.names, self.values)))
        model = int(self.accel.cost(registers))
        s = self.stats
        layer = self.devices.open_layer
        s.record(layer, self.now(), cycles, started)
        s.model_cycles += model
        if s.mac_cycles is not None:
            s.mac_cycles += int(self.accel.mac_cost(registers))
        if layer is not None:
            s.model_by_layer[layer] = s.model_by_layer.get(layer, 0) + model


def make_accel_device(accel: Any, devices: DeviceState) -> AccelDevice | RtlDevice:
    """The device for the platform's accelerator: its RTL when it declares some, else its Python model."""
    return RtlDevice(accel, devices) if is_rtl(accel) else AccelDevice(accel, devices)
