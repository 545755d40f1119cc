"""Exact instruction counting with a native Unicorn block hook (mote_count.c), and what Python makes of
its table: instruction counts per class, for the whole run or up to any store.

The C hook counts whole blocks when they are entered. A snapshot taken in the middle of a block (a
device register write) therefore subtracts the instructions of that block after the store, which
have not run yet; `Snapshot.tail` holds them.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import unicorn as uc_mod
from unicorn.unicorn_py3 import unicorn as uc_impl

from mote.errors import BuildError
from mote.sim.decode import BEATS, NUM_CLASSES, Cls, Insn
from mote.sim.faults import SimulationError

_SOURCE = "mote_count.c"

# Mirrors mote_block in mote_count.c.
BLOCK_DTYPE = np.dtype([("addr", "<u4"), ("ninsn", "<u4"), ("count", "<u8"), ("taken", "<u8")])
EMPTY_KEY = 0xFFFFFFFF
STOP_LIMIT = 1
STOP_MISALIGNED = 2
MAX_REGIONS = 4  # mirrors MAX_REGIONS in mote_count.c


class CounterState(ctypes.Structure):
    """Mirrors mote_counter in mote_count.c."""

    _fields_ = [
        ("table", ctypes.c_void_p),
        ("capacity", ctypes.c_uint32),
        ("used", ctypes.c_uint32),
        ("insns", ctypes.c_uint64),
        ("limit", ctypes.c_uint64),
        ("cur", ctypes.c_int32),
        ("cur_end", ctypes.c_uint32),
        ("stop_reason", ctypes.c_int32),
        ("fault_addr", ctypes.c_uint32),
        ("fault_pc", ctypes.c_uint32),
        ("fault_size", ctypes.c_int32),
        ("fault_write", ctypes.c_int32),
        ("pc_regid", ctypes.c_int32),
        ("mem_read", ctypes.c_void_p),
        ("emu_stop", ctypes.c_void_p),
        ("reg_read", ctypes.c_void_p),
        ("nregions", ctypes.c_uint32),
        ("region_lo", ctypes.c_uint32 * MAX_REGIONS),
        ("region_hi", ctypes.c_uint32 * MAX_REGIONS),
        ("reads", ctypes.c_uint64 * MAX_REGIONS),
        ("writes", ctypes.c_uint64 * MAX_REGIONS),
        ("length_rule", ctypes.c_int32),
        ("reg_write", ctypes.c_void_p),
        ("it_regid", ctypes.c_int32),
        ("align_rule", ctypes.c_int32),
    ]


def _cache_dir() -> Path:
    """~/.cache/mote (or $XDG_CACHE_HOME/mote), else a per-user temp dir when home is read-only."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mote"
    try:
        base.mkdir(parents=True, exist_ok=True)
        probe = base / f".probe{os.getpid()}"
        probe.touch()
        probe.unlink()
        return base
    except OSError:
        fallback = Path(tempfile.gettempdir()) / f"mote-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
        fallback.mkdir(parents=True, exist_ok=True)
        return fallback


_lib: ctypes.CDLL | None = None


def native_library(cc: str) -> ctypes.CDLL:
    """The compiled hook library, built once with the host C compiler `cc` and cached by source hash.
    The caller names the compiler (mote.targets.host.find_cc): the simulator sits below the targets."""
    global _lib
    if _lib is not None:
        return _lib
    source = resources.files("mote.sim").joinpath(_SOURCE).read_bytes()
    key = hashlib.sha256(source + f"{cc} {sys.platform} {platform.machine()}".encode()).hexdigest()[:16]
    lib_path = _cache_dir() / f"mote_count-{key}.so"
    if not lib_path.exists():
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / _SOURCE
            src.write_bytes(source)
            out = Path(tmp) / "lib.so"
            proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(src)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"building the simulator's native counter failed: {proc.stderr.strip()[:300]}")
            # Another process may be doing the same: rename is atomic, the last one wins harmlessly.
            staged = lib_path.with_name(f"{lib_path.name}.{os.getpid()}")
            staged.write_bytes(out.read_bytes())
            os.replace(staged, lib_path)
    lib = ctypes.CDLL(str(lib_path))
    lib.mote_counter_new.restype = ctypes.POINTER(CounterState)
    lib.mote_counter_new.argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_void_p, ctypes.c_int32]
    lib.mote_counter_free.restype = None
    lib.mote_counter_free.argtypes = [ctypes.POINTER(CounterState)]
    _lib = lib
    return lib


@dataclass
class Snapshot:
    """The counters at one instant: per block (address, entries, taken exits), minus `tail`, the
    instructions of the current block that had not executed yet."""

    addrs: np.ndarray   # uint32
    counts: np.ndarray  # uint64
    taken: np.ndarray   # uint64
    insns: int          # instructions of all blocks entered, whole
    tail: tuple[Insn, ...]
    # Loads and stores per counted memory region (Counter.count_regions), exact at the instant: the
    # memory hook counts each access as it executes, so no tail correction is needed. None: not counted.
    reads: tuple[int, ...] | None = None
    writes: tuple[int, ...] | None = None

    @property
    def instructions(self) -> int:
        return self.insns - len(self.tail)


class Counter:
    """Owns one native counter state; reads its table."""

    def __init__(self, uc_lib: ctypes.CDLL, pc_regid: int, host_cc: str, capacity: int = 4096) -> None:
        self.lib = native_library(host_cc)

        def address(function: object) -> ctypes.c_void_p:
            return ctypes.cast(function, ctypes.c_void_p)

        # The hooks call back into Unicorn through these pointers (see mote_count.c).
        self.state_ptr = self.lib.mote_counter_new(capacity, address(uc_lib.uc_mem_read),
                                                   address(uc_lib.uc_emu_stop), address(uc_lib.uc_reg_read),
                                                   address(uc_lib.uc_reg_write), pc_regid)
        if not self.state_ptr:
            raise MemoryError("cannot allocate the instruction counter")
        self.state = self.state_ptr.contents
        self._view_of: tuple[int, int] | None = None  # the table and capacity _view shows
        self._view = np.empty(0, dtype=BLOCK_DTYPE)

    def close(self) -> None:
        if self.state_ptr:
            self.lib.mote_counter_free(self.state_ptr)
            self.state_ptr = None

    @property
    def block_hook(self) -> int:
        return ctypes.cast(self.lib.mote_block_hook, ctypes.c_void_p).value or 0

    @property
    def mem_hook(self) -> int:
        return ctypes.cast(self.lib.mote_mem_hook, ctypes.c_void_p).value or 0

    @property
    def indirect_block_hook(self) -> int:
        return ctypes.cast(self.lib.mote_block_hook_indirect, ctypes.c_void_p).value or 0

    @property
    def indirect_mem_hook(self) -> int:
        return ctypes.cast(self.lib.mote_mem_hook_indirect, ctypes.c_void_p).value or 0

    @property
    def user_data(self) -> int:
        return ctypes.cast(self.state_ptr, ctypes.c_void_p).value or 0

    def _slots(self) -> np.ndarray:
        """Every slot of the hash table, as a view (remade when the table grows)."""
        s = self.state
        if self._view_of != (s.table, s.capacity):
            raw = (ctypes.c_char * (s.capacity * BLOCK_DTYPE.itemsize)).from_address(s.table)
            self._view = np.frombuffer(raw, dtype=BLOCK_DTYPE)
            self._view_of = (s.table, s.capacity)
        return self._view

    def table(self) -> np.ndarray:
        """The used slots of the hash table (a copy)."""
        table = self._slots()
        return table[table["addr"] != EMPTY_KEY]

    def table_row(self, index: int) -> np.void:
        """One slot of the hash table (a copy)."""
        return self._slots()[index].copy()

    def current_block(self) -> int | None:
        """Start address of the block executing now."""
        current = self.current()
        return None if current is None else current[0]

    def current(self) -> tuple[int, int] | None:
        """The block executing now: its start address and its number of instructions (None: none)."""
        cur = self.state.cur
        if cur < 0:
            return None
        row = self._slots()[cur]
        return int(row["addr"]), int(row["ninsn"])

    def count_regions(self, regions: list[tuple[int, int]]) -> None:
        """Count the loads and stores that hit each [low, high) address range (with the memory hook
        installed): at most MAX_REGIONS of them, in order."""
        if len(regions) > MAX_REGIONS:
            raise ValueError(f"at most {MAX_REGIONS} counted memory regions, not {len(regions)}")
        s = self.state
        for i, (low, high) in enumerate(regions):
            s.region_lo[i], s.region_hi[i] = low, high
        s.nregions = len(regions)

    def snapshot(self, tail: tuple[Insn, ...] = (), memory: bool = False) -> Snapshot:
        """The counters now; with `memory`, the per-region load and store counts too."""
        t = self.table()
        s = self.state
        n = s.nregions if memory else 0
        reads = tuple(int(s.reads[i]) for i in range(n)) if memory else None
        writes = tuple(int(s.writes[i]) for i in range(n)) if memory else None
        return Snapshot(t["addr"], t["count"], t["taken"], int(s.insns), tail, reads, writes)


class ClassTally:
    """Turns snapshots into per-class instruction counts, given every block's decoded instructions."""

    def __init__(self, blocks: dict[int, list[Insn]]) -> None:
        self.addrs = np.array(sorted(blocks), dtype=np.uint32)
        n = len(self.addrs)
        # Per block: the class counts of one execution with its final conditional branch (if any)
        # left out, and whether it ends with one; the branch's direction comes from `taken`.
        self.base = np.zeros((n, NUM_CLASSES + 1), dtype=np.int64)
        self.ends_in_branch = np.zeros(n, dtype=bool)
        rows: list[int] = []
        classes: list[int] = []
        beats: list[int] = []
        for row, addr in enumerate(self.addrs.tolist()):
            insns = blocks[addr]
            rows += [row] * len(insns)
            classes += [int(insn.cls) for insn in insns]
            beats += [insn.beats for insn in insns]
            if insns and insns[-1].cls is Cls.BRANCH_NOT_TAKEN:
                self.ends_in_branch[row] = True
        np.add.at(self.base, (np.array(rows, dtype=np.intp), np.array(classes, dtype=np.intp)), 1)
        np.add.at(self.base[:, BEATS], np.array(rows, dtype=np.intp), np.array(beats, dtype=np.int64))
        self.base[self.ends_in_branch, Cls.BRANCH_NOT_TAKEN] -= 1

    def classes(self, snap: Snapshot) -> np.ndarray:
        """Executed instructions per class (int64, indexed by Cls, then the beats at BEATS) at the snapshot."""
        rows = np.searchsorted(self.addrs, snap.addrs)
        counts = snap.counts.astype(np.int64)
        out = counts @ self.base[rows]
        ends = self.ends_in_branch[rows]
        taken, entered = int(snap.taken[ends].sum()), int(counts[ends].sum())
        out[Cls.BRANCH_TAKEN] += taken
        out[Cls.BRANCH_NOT_TAKEN] += entered - taken
        # The unexecuted tail: its final branch was booked as not taken, since the block that
        # follows it (which would mark it taken) had not started.
        for insn in snap.tail:
            out[insn.cls] -= 1
            out[BEATS] -= insn.beats
        return out


def native_hooks(uc: Any, counter: Counter, user_data: int, memory: bool,
                 indirect: bool = False) -> list[object]:
    """Install the native block hook (and, with `memory`, the memory hook) with `user_data`: a counter state,
    or with `indirect` the address of a pointer to one (the cluster's engine: mote.sim.cluster)."""
    kinds = [(uc_mod.UC_HOOK_BLOCK, counter.indirect_block_hook if indirect else counter.block_hook)]
    if memory:
        kinds.append((uc_mod.UC_HOOK_MEM_READ | uc_mod.UC_HOOK_MEM_WRITE,
                      counter.indirect_mem_hook if indirect else counter.mem_hook))
    handles = []
    for kind, callback in kinds:
        handle = uc_impl.uc_hook_h()
        status = uc_impl.uclib.uc_hook_add(uc._uch, uc_impl.ctypes.byref(handle), kind,
                                           uc_impl.ctypes.c_void_p(callback), uc_impl.ctypes.c_void_p(user_data),
                                           1, 0)
        if status != 0:
            raise SimulationError(f"cannot install the native counting hook (unicorn error {status})")
        handles.append(handle)
    return handles
