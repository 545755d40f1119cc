"""The Cortex-M cross compilers: zig's clang (pip package `ziglang`, the default: a fresh venv needs nothing
else) or arm-none-eabi-gcc when it is on PATH; either can be asked for by name.

Both build freestanding Thumb code for the core's -mcpu, with the hard-float ABI on cores with an FPU, and
link their own runtime library for what the core lacks in hardware (Cortex-M0+'s division, soft float):
zig its compiler_rt, gcc libgcc.
"""

from __future__ import annotations

import shutil

from mote.errors import BuildError
from mote.targets.cortexm.cores import ArmCore
from mote.targets.rv32.toolchain import Toolchain, _zig

GCC = "arm-none-eabi-gcc"
CHOICES = ("auto", "zig", "gcc")


def find_toolchain(cc: str, core: ArmCore) -> Toolchain:
    """The toolchain for `cc` ("zig", "gcc" or "auto": gcc when present, else zig) and `core`; its
    `targets` has one entry, keyed by the core's name."""
    if cc == "auto":
        cc = "gcc" if shutil.which(GCC) else "zig"
    if cc == "zig":
        zig = _zig()
        triple = "thumb-freestanding-eabihf" if core.fpu else "thumb-freestanding-eabi"
        return Toolchain(name="zig", driver=zig.driver,
                         targets={core.name: ("-target", triple, f"-mcpu={core.llvm_cpu}", "-mthumb")},
                         extra=zig.extra, link=(), version=zig.version)
    if cc == "gcc":
        return _gcc(core)
    raise BuildError(f"unknown Cortex-M compiler {cc!r}; use one of {', '.join(CHOICES)}")


def _gcc(core: ArmCore) -> Toolchain:
    import subprocess

    path = shutil.which(GCC)
    if path is None:
        raise BuildError(f"{GCC} not found on PATH; install it (Debian/Ubuntu: apt install gcc-arm-none-eabi) "
                         "or use --cc zig")
    proc = subprocess.run([path, "--version"], capture_output=True, text=True)
    first = proc.stdout.splitlines()[0] if proc.stdout else GCC
    fpu = ("-mfloat-abi=hard", f"-mfpu={core.fpu}") if core.fpu else ("-mfloat-abi=soft",)
    return Toolchain(name="gcc", driver=(path,), targets={core.name: (f"-mcpu={core.gcc_cpu}", "-mthumb", *fpu)},
                     extra=("-fno-tree-loop-distribute-patterns", "-g"), link=("-nostdlib", "-lgcc"),
                     version=first)


