"""A Verilated accelerator loaded with ctypes: reset, register writes and reads, and clock steps whose
memory requests are served by two native callbacks (wrapper.cpp). The virtual platform hands over
Unicorn's own uc_mem_read / uc_mem_write with its engine as the context, so no Python runs per
cycle; `PythonMemory` serves requests from any object with read/write methods (tests, tools)."""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from mote.accel.rtl.build import RtlError

READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t)
WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t)

_LIBRARIES: dict[Path, ctypes.CDLL] = {}


def _load(path: Path) -> ctypes.CDLL:
    if path not in _LIBRARIES:
        lib = ctypes.CDLL(str(path))
        lib.mote_rtl_new.restype = ctypes.c_void_p
        lib.mote_rtl_free.argtypes = [ctypes.c_void_p]
        lib.mote_rtl_reset.argtypes = [ctypes.c_void_p]
        lib.mote_rtl_write_reg.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p,
                                           ctypes.c_void_p, ctypes.c_void_p]
        lib.mote_rtl_read_reg.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        lib.mote_rtl_read_reg.restype = ctypes.c_uint32
        lib.mote_rtl_busy.argtypes = [ctypes.c_void_p]
        lib.mote_rtl_busy.restype = ctypes.c_uint32
        lib.mote_rtl_step.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_void_p,
                                      ctypes.c_void_p, ctypes.c_void_p]
        lib.mote_rtl_step.restype = ctypes.c_int64
        lib.mote_rtl_cycles.argtypes = [ctypes.c_void_p]
        lib.mote_rtl_cycles.restype = ctypes.c_uint64
        lib.mote_rtl_fault_address.argtypes = [ctypes.c_void_p]
        lib.mote_rtl_fault_address.restype = ctypes.c_uint32
        _LIBRARIES[path] = lib
    return _LIBRARIES[path]


class PythonMemory:
    """Serves the RTL's memory requests from an object with read(address, size) and write(address, data)."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory

        def read(ctx: int, address: int, bytes_: int, size: int) -> int:
            try:
                ctypes.memmove(bytes_, self.memory.read(address, size), size)
            except Exception:  # noqa: BLE001 - a failed access is reported by the model as a fault
                return 1
            return 0

        def write(ctx: int, address: int, bytes_: int, size: int) -> int:
            try:
                self.memory.write(address, ctypes.string_at(bytes_, size))
            except Exception:  # noqa: BLE001
                return 1
            return 0

        self._read, self._write = READ_FN(read), WRITE_FN(write)  # kept alive with this object
        self.port = (ctypes.cast(self._read, ctypes.c_void_p), ctypes.cast(self._write, ctypes.c_void_p), None)


class RtlModel:
    """One instance of a Verilated design. `port` is (read function, write function, context)."""

    def __init__(self, library: Path) -> None:
        self.lib = _load(Path(library))
        self.handle = ctypes.c_void_p(self.lib.mote_rtl_new())
        self.lib.mote_rtl_reset(self.handle)

    def close(self) -> None:
        if self.handle:
            self.lib.mote_rtl_free(self.handle)
            self.handle = ctypes.c_void_p()

    def __del__(self) -> None:
        self.close()

    def reset(self) -> None:
        self.lib.mote_rtl_reset(self.handle)

    def write_register(self, index: int, value: int, port: tuple = (None, None, None)) -> None:
        if self.lib.mote_rtl_write_reg(self.handle, index, value & 0xFFFFFFFF, *port) != 0:
            self._fault()

    def read_register(self, index: int) -> int:
        return int(self.lib.mote_rtl_read_reg(self.handle, index))

    @property
    def busy(self) -> bool:
        return bool(self.lib.mote_rtl_busy(self.handle))

    @property
    def cycles(self) -> int:
        """Clock cycles since the last reset (register writes included)."""
        return int(self.lib.mote_rtl_cycles(self.handle))

    def step(self, cycles: int, port: tuple, until_idle: bool = False) -> int:
        """Steps `cycles` clocks (or until the design is idle); returns the cycles stepped."""
        done = self.lib.mote_rtl_step(self.handle, cycles, int(until_idle), *port)
        if done < 0:
            self._fault()
        return int(done)

    def run(self, port: tuple, limit: int) -> int:
        """Steps until the design is idle; an RtlError if it is still busy after `limit` cycles."""
        done = self.step(limit, port, until_idle=True)
        if self.busy:
            raise RtlError(f"the RTL accelerator was still busy after {limit} cycles")
        return done

    def _fault(self) -> None:
        address = self.lib.mote_rtl_fault_address(self.handle)
        raise RtlError(f"the RTL accelerator accessed unmapped or unwritable memory at 0x{address:08x}")
