"""Reading a platform description (mote.sim.platforms) from a file, as untrusted input.

TOML is read with the standard library's tomllib (Python 3.11 and later; `tomli`, when installed,
stands in for it on 3.10). JSON holds the same tables and works on every supported Python. Every
error is one line: the file, where in it (e.g. memories[1].size), what is wrong and what to write.

    name = "mymcu"                 # required
    description = "..."
    stack = "16KiB"                # the top of the ram memory
    node = "22 nm, 0.8 V"          # what the energy figures are for (free text)
    energy_scale = 1.0             # multiplies every energy figure
    [[cores]]                      # one or more groups; the last one runs the layers
    name = "core"  isa = "rv32imc"  count = 1  fetch_pj = 25.0  code_in = "flash"
    cycles = { load = 2, mulh = 5 }      # mote.sim.cycles.CoreModel fields
    energy_pj = { alu = 45.1 }           # pJ per instruction class (the rest keep their defaults)
    [[memories]]                   # exactly one flash and one ram; optionally an l1
    name = "flash"  kind = "flash"  size = "2MiB"  wait_states = 0  read_pj = 100.0  write_pj = 100.0
    [[dma]]                        # source = "l2"  target = "l1"  bytes_per_cycle = 8  channels = 1  byte_pj = 13.75
                                   # setup_cycles = 16
    [[accelerators]]               # name = "dla"  sees = ["l1", "l2"]  mac_pj = 0.3  sram_pj = 10.0  accel = "qvanilla"
                                   # (no sram_pj: priced by the size of the SRAM the accelerator declares)
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path
from typing import Any

from mote.config import parse_size
from mote.errors import PlatformError
from mote.sim.cycles import CoreModel
from mote.sim.platforms import DEFAULT_CLASS_PJ, AcceleratorSlot, ClassEnergy, CoreGroup, Dma, Memory, Platform

MAX_FILE_BYTES = 1 << 20
MAX_COUNT = 64  # cores per group
MAX_SIZE = 1 << 30
MEMORY_KINDS = ("flash", "ram", "l1")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+.-]{0,39}")


class _Reader:
    """Typed fields of one table, with the file and the table's place for error messages."""

    def __init__(self, path: Path, where: str, table: Any, keys: tuple[str, ...]) -> None:
        self.path, self.where = path, where
        if not isinstance(table, dict):
            self.fail(f"is a {type(table).__name__}, not a table")
        unknown = sorted(set(table) - set(keys))
        if unknown:
            self.fail(f"has an unknown key {unknown[0]!r}; known keys: {', '.join(keys)}")
        self.table = table

    def fail(self, what: str, key: str | None = None) -> None:
        place = f"{self.where}.{key}" if key and self.where else key or self.where or "the top level"
        raise PlatformError(f"platform file {self.path}: {place} {what}")

    def has(self, key: str) -> bool:
        return key in self.table

    def name(self, key: str, default: str | None = None) -> str:
        value = self.table.get(key, default)
        if value is None:
            self.fail("is missing: give it a name", key)
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            self.fail(f"must be a name (a letter, then letters, digits, _ + . -; at most 40), not {value!r}", key)
        return value

    def text(self, key: str, default: str) -> str:
        value = self.table.get(key, default)
        if not isinstance(value, str) or len(value) > 200:
            self.fail("must be a text of at most 200 characters", key)
        return value

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(f"must be a whole number from {low} to {high:,}, not {value!r}", key)
        return value

    def size(self, key: str, default: int | None) -> int:
        value = self.table.get(key, default)
        if value is None:
            self.fail("is missing: give a size such as 512KiB", key)
        if isinstance(value, str):
            try:
                value = parse_size(value)
            except ValueError as e:
                self.fail(str(e), key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_SIZE:
            self.fail(f"must be a size from 1 byte to 1GiB (e.g. 512KiB), not {value!r}", key)
        return value

    def number(self, key: str, default: float, where: str | None = None) -> float:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            self.fail(f"must be a number of at least 0 (pJ or a factor), not {value!r}", where or key)
        return float(value)

    def names(self, key: str) -> tuple[str, ...]:
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail("must be a list of memory or core names", key)
        return tuple(value)

    def tables(self, key: str) -> list[Any]:
        value = self.table.get(key, [])
        if not isinstance(value, list):
            self.fail("must be a list of tables ([[...]] in TOML)", key)
        return value


def load_platform(path: Path) -> Platform:
    """The platform described in `path` (.toml or .json). Raises PlatformError."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise PlatformError(f"platform file {path}: larger than 1 MiB; a platform description is a few lines")
        raw = path.read_bytes()
    except OSError as e:
        raise PlatformError(f"platform file {path}: cannot read it ({e.strerror}); check the path") from None
    return parse_platform(raw, path)


def parse_platform(raw: bytes, path: Path) -> Platform:
    """A platform from the bytes of a .toml or .json file named `path`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PlatformError(f"platform file {path}: not UTF-8 text; write it as TOML or JSON") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise PlatformError(f"platform file {path}: invalid JSON at line {e.lineno}: {e.msg}") from None
    elif path.suffix.lower() == ".toml":
        data = _toml(text, path)
    else:
        raise PlatformError(f"platform file {path}: name it .toml or .json so that its format is known")
    return _platform(data, path)


def _toml(text: str, path: Path) -> Any:
    try:
        import tomllib as toml  # Python 3.11+
    except ModuleNotFoundError:
        try:
            import tomli as toml  # type: ignore[no-redef]  # the same parser, installed on 3.10
        except ModuleNotFoundError:
            raise PlatformError(f"platform file {path}: reading TOML needs Python 3.11 or later (tomllib); write the "
                                "same tables as a .json file instead") from None
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as e:
        raise PlatformError(f"platform file {path}: invalid TOML: {' '.join(str(e).split())}") from None


_TOP = ("name", "description", "stack", "node", "energy_scale", "cores", "memories", "dma", "accelerators")
_CORE = ("name", "isa", "count", "cycles", "energy_pj", "fetch_pj", "code_in")
_MEMORY = ("name", "kind", "size", "wait_states", "read_pj", "write_pj", "shared_by")
_DMA = ("source", "target", "bytes_per_cycle", "channels", "byte_pj", "setup_cycles")
_ACCEL = ("name", "sees", "mac_pj", "sram_pj", "accel")


def _platform(data: Any, path: Path) -> Platform:
    top = _Reader(path, "", data, _TOP)
    default = Platform("default")
    cores = tuple(_core(_Reader(path, f"cores[{i}]", t, _CORE)) for i, t in enumerate(top.tables("cores")))
    memories = tuple(_memory(_Reader(path, f"memories[{i}]", t, _MEMORY)) for i, t in enumerate(top.tables("memories")))
    dma = tuple(_dma(_Reader(path, f"dma[{i}]", t, _DMA)) for i, t in enumerate(top.tables("dma")))
    accels = tuple(_accel(_Reader(path, f"accelerators[{i}]", t, _ACCEL))
                   for i, t in enumerate(top.tables("accelerators")))
    platform = Platform(top.name("name"), top.text("description", ""), cores or default.cores, memories,
                        top.size("stack", default.stack_bytes), dma, accels, top.text("node", default.node),
                        top.number("energy_scale", 1.0))
    _check(platform, top)
    return platform


def _core(r: _Reader) -> CoreGroup:
    default = CoreGroup()
    isa = r.text("isa", default.isa)
    if not re.fullmatch(r"rv32[a-z]+", isa):
        r.fail(f"must be an RV32 ISA such as rv32imc, not {isa!r}", "isa")
    cycles = default.cycles
    if r.has("cycles"):
        fields = [f.name for f in dataclasses.fields(CoreModel) if f.name != "name"]
        sub = _Reader(r.path, f"{r.where}.cycles", r.table["cycles"], tuple(fields))
        cycles = dataclasses.replace(cycles, **{k: sub.integer(k, 1, 0, 1000) for k in sub.table})
    energy_pj = ClassEnergy()
    if r.has("energy_pj"):
        sub = _Reader(r.path, f"{r.where}.energy_pj", r.table["energy_pj"], tuple(DEFAULT_CLASS_PJ))
        energy_pj = dataclasses.replace(energy_pj, **{k: sub.number(k, 0.0) for k in sub.table})
    return CoreGroup(r.name("name", default.name), isa, r.integer("count", 1, 1, MAX_COUNT), cycles, energy_pj,
                     r.number("fetch_pj", default.fetch_pj), r.name("code_in", default.code_in))


def _memory(r: _Reader) -> Memory:
    kind = r.text("kind", "")
    if kind not in MEMORY_KINDS:
        r.fail(f"must be one of {', '.join(MEMORY_KINDS)}, not {kind!r}", "kind")
    default = Memory("m", kind, 1)
    return Memory(r.name("name"), kind, r.size("size", None), r.integer("wait_states", 0, 0, 1000),
                  r.number("read_pj", default.read_pj), r.number("write_pj", default.write_pj), r.names("shared_by"))


def _dma(r: _Reader) -> Dma:
    default = Dma("a", "b")
    return Dma(r.name("source"), r.name("target"), r.integer("bytes_per_cycle", default.bytes_per_cycle, 1, 1024),
               r.integer("channels", default.channels, 1, 64), r.number("byte_pj", default.byte_pj),
               r.integer("setup_cycles", default.setup_cycles, 0, 1 << 20))


def _accel(r: _Reader) -> AcceleratorSlot:
    default = AcceleratorSlot("a", ())
    return AcceleratorSlot(r.name("name"), r.names("sees"), r.number("mac_pj", default.mac_pj),
                           r.number("sram_pj", 0.0) if "sram_pj" in r.table else None, r.text("accel", ""))


def _check(p: Platform, top: _Reader) -> None:
    """What no single table can say: unique names, the memories a platform needs, references."""
    names = [m.name for m in p.memories]
    for kind in ("flash", "ram"):
        if sum(m.kind == kind for m in p.memories) != 1:
            top.fail(f"needs exactly one memory of kind {kind!r} (code and constants in flash, data in ram)",
                     "memories")
    if sum(m.kind == "l1" for m in p.memories) > 1:
        top.fail("may have one memory of kind 'l1' at most", "memories")
    if len(set(names)) != len(names):
        top.fail("names a memory twice; give each its own name", "memories")
    groups = [g.name for g in p.cores]
    if len(set(groups)) != len(groups):
        top.fail("names a core group twice; give each its own name", "cores")
    for i, g in enumerate(p.cores):
        if g.code_in not in names:
            top.fail(f"names memory {g.code_in!r}, which the platform does not have", f"cores[{i}].code_in")
    for i, m in enumerate(p.memories):
        for g in m.shared_by:
            if g not in groups:
                top.fail(f"names core group {g!r}, which the platform does not have", f"memories[{i}].shared_by")
    for i, d in enumerate(p.dma):
        for key in ("source", "target"):
            if getattr(d, key) not in names:
                top.fail(f"names memory {getattr(d, key)!r}, which the platform does not have", f"dma[{i}].{key}")
    for i, a in enumerate(p.accelerators):
        for m in a.sees:
            if m not in names:
                top.fail(f"names memory {m!r}, which the platform does not have", f"accelerators[{i}].sees")
    ram = p.memory("ram")
    if ram is not None and not 0 < p.stack_bytes < ram.bytes:
        top.fail(f"must be smaller than the ram memory ({ram.bytes} bytes)", "stack")
