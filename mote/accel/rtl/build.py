"""Compiling an accelerator's Verilog/SystemVerilog with Verilator into a shared library mote loads.

Verilator (`--cc --build -O3 --x-assign fast`) turns the sources plus mote's C++ wrapper (wrapper.cpp,
a C ABI over the model) into archives that g++ links into one shared library. The library is cached
under `$MOTE_RTL_CACHE` (default: `~/.cache/mote/rtl`) in a directory named after a hash of the
sources, the wrapper, the top module and Verilator's version, so a design compiles once and later runs
(and test runs) load it at once. The tools: Verilator from the `verilator` package (or one on
PATH), and a C++ compiler (`$CXX`, else g++ or clang++); a missing one is a one-line RtlError.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

from mote.accel.rtl.ports import check_ports
from mote.accel.rtl.tools import RtlError, cxx_compiler, first_error, verilator_tool

WRAPPER = Path(__file__).with_name("wrapper.cpp")
LIBRARY = "libmote_rtl.so"
CXXFLAGS = "-O2 -fPIC"


def cache_root() -> Path:
    return Path(os.environ.get("MOTE_RTL_CACHE") or Path.home() / ".cache" / "mote" / "rtl")


def _version(tool: str, env: dict[str, str]) -> str:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, env={**os.environ, **env})
    except OSError as e:  # e.g. no perl, which runs the verilator script
        raise RtlError(f"cannot run Verilator ({tool}): {e.strerror or e}; it needs perl") from None
    return out.stdout.strip()


def source_hash(sources: list[Path], top: str, version: str) -> str:
    h = hashlib.sha256(f"{top}\n{version}\n{CXXFLAGS}\n".encode())
    for path in [*sources, WRAPPER]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build_library(sources: list[Path], top: str) -> Path:
    """The shared library of the design `sources` with top module `top`: from the cache, or built now."""
    missing = [str(p) for p in sources if not Path(p).is_file()]
    if missing:
        raise RtlError(f"RTL source {missing[0]} does not exist; give the accelerator's Verilog files")
    cxx = cxx_compiler()
    tool, env = verilator_tool()
    env = {**os.environ, **env, "CXX": cxx}
    sources = [Path(p).resolve() for p in sources]
    target = cache_root() / f"{top}-{source_hash(sources, top, _version(tool, env))}"
    library = target / LIBRARY
    if library.exists():
        return library
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{target.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers: one builds, the others wait and load it
        if not library.exists():
            check_ports(sources, top, tool, env)
            _build(sources, top, tool, env, cxx, target)
    return library


def _build(sources: list[Path], top: str, tool: str, env: dict[str, str], cxx: str, target: Path) -> None:
    library = target / LIBRARY
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{top}-") as work:
        obj = Path(work) / "obj"
        command = [tool, "--cc", "--build", "-O3", "--x-assign", "fast", "--x-initial", "fast",
                   "--prefix", "Vmote_rtl", "--top-module", top, "--Mdir", str(obj),
                   "-MAKEFLAGS", f"CXX={cxx} OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2",
                   "-CFLAGS", CXXFLAGS, *map(str, sources), str(WRAPPER)]
        _run(command, env, f"Verilator could not build {top}")
        staged = Path(work) / LIBRARY
        _run([cxx, "-shared", "-o", str(staged), "-Wl,--whole-archive", str(obj / "libVmote_rtl.a"),
              "-Wl,--no-whole-archive", str(obj / "libverilated.a"), "-pthread"], env,
             f"linking the Verilated {top} failed")
        done = Path(work) / "lib"
        done.mkdir()
        staged.rename(done / LIBRARY)
        try:
            done.rename(target)  # atomic: a library in the cache is always complete
        except OSError:
            if not library.exists():
                raise


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, env=env)
    except OSError as e:
        raise RtlError(f"{what}: cannot run {command[0]}: {e.strerror or e}") from None
    if out.returncode != 0:
        raise RtlError(f"{what}: {first_error(out.stderr + out.stdout)}")
