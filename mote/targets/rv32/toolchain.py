"""The rv32 cross compilers, for rv32imc or (with the F extension and the ilp32f ABI) rv32imfc: a GNU
riscv64-unknown-elf-gcc when present, else zig's clang (pip package `ziglang`: a fresh venv needs nothing
else); either can be asked for by name.

Both build freestanding code (no libc: mote_support.c has the few functions compilers call) and link
their own runtime library for what the core lacks in hardware (soft float for the float QUANTIZE /
DEQUANTIZE kernels, 64-bit division): zig links its compiler_rt unless -nostdlib is given, so it
is not given; gcc gets -nostdlib and libgcc explicitly.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from dataclasses import dataclass

from mote.errors import BuildError

GCC = "riscv64-unknown-elf-gcc"
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os", "-Oz")
ISAS = ("rv32imc", "rv32imfc")

# For every compiler: no libc, one section per function and object so the linker drops unused ones.
# -ffp-contract=off: no fused multiply-add, so that float kernels round as TFLite Micro's do.
_COMMON = ("-ffreestanding", "-ffunction-sections", "-fdata-sections", "-fno-common", "-ffp-contract=off")
_WARNINGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")


@dataclass(frozen=True)
class Toolchain:
    name: str                  # "zig" or "gcc"
    driver: tuple[str, ...]    # the command that compiles and links
    targets: dict[str, tuple[str, ...]]  # target selection flags per ISA (ISAS)
    extra: tuple[str, ...]     # compiler-specific code generation flags
    link: tuple[str, ...]      # linker flags and libraries, after the sources
    version: str

    def cflags(self, opt: str, isa: str = "rv32imc") -> tuple[str, ...]:
        """Every flag that shapes the generated code, as recorded in reports."""
        return (*self.targets[isa], opt, *_COMMON, *self.extra)

    def command(self, opt: str, sources: list[str], output: str, linker_script: str, includes: list[str],
                system_includes: list[str], forced: list[str], isa: str = "rv32imc") -> list[str]:
        """One compile-and-link command line (run it in the project directory)."""
        inc = [f for d in includes for f in ("-I", d)] + [f for d in system_includes for f in ("-isystem", d)]
        force = [f for h in forced for f in ("-include", h)]
        return [*self.driver, *self.cflags(opt, isa), *_WARNINGS, *inc, *force, "-T", linker_script,
                "-Wl,--gc-sections", "-o", output, *sources, *self.link]


CHOICES = ("auto", "zig", "gcc")


def find_toolchain(cc: str = "auto") -> Toolchain:
    """The toolchain for `cc`: "zig", "gcc" (riscv64-unknown-elf-gcc on PATH) or "auto" (gcc when
    present, else zig)."""
    if cc == "auto":
        cc = "gcc" if shutil.which(GCC) else "zig"
    if cc == "zig":
        return _zig()
    if cc == "gcc":
        return _gcc()
    raise BuildError(f"unknown rv32 compiler {cc!r}; use one of {', '.join(CHOICES)}")


@functools.cache
def _zig() -> Toolchain:
    driver = (sys.executable, "-m", "ziglang")
    try:
        proc = subprocess.run([*driver, "version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"cannot run zig ({e}); install it with `pip install ziglang`") from None
    if proc.returncode != 0:
        raise BuildError("zig is not available in this Python environment; install it with `pip install ziglang`")
    return Toolchain(
        name="zig",
        driver=(*driver, "cc"),
        targets={"rv32imc": ("-target", "riscv32-freestanding-none", "-mcpu=generic_rv32+m+c"),
                 "rv32imfc": ("-target", "riscv32-freestanding-none", "-mcpu=generic_rv32+m+f+c", "-mabi=ilp32f")},
        # -g: at -Os zig strips the symbol table, which the simulator needs (I/O buffers, function
        # names in fault messages). Debug info does not change the code and is not loaded.
        # -fomit-frame-pointer and no machine scheduling: zig keeps a frame pointer, and LLVM's
        # scheduler hoists loads far ahead of their uses, which on register-blocked kernels (sixteen
        # accumulators) costs spills inside the inner loops; without them those loops spill nothing.
        extra=("-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-g", "-fomit-frame-pointer",
               "-mllvm", "-enable-misched=false"),
        link=(),
        version=f"zig cc {proc.stdout.strip()}",
    )


@functools.cache
def _gcc() -> Toolchain:
    path = shutil.which(GCC)
    if path is None:
        raise BuildError(f"{GCC} not found on PATH; install it (Debian/Ubuntu: apt install gcc-riscv64-unknown-elf) "
                         "or use --cc zig (Rv32Config(cc='zig') from Python)")
    proc = subprocess.run([path, "--version"], capture_output=True, text=True)
    first = proc.stdout.splitlines()[0] if proc.stdout else GCC
    return Toolchain(
        name="gcc",
        driver=(path,),
        targets={"rv32imc": ("-march=rv32imc", "-mabi=ilp32", "-mcmodel=medlow"),
                 "rv32imfc": ("-march=rv32imfc", "-mabi=ilp32f", "-mcmodel=medlow")},
        # GCC turns copy and fill loops into memcpy/memset calls even when freestanding; in
        # mote_support.c that would make memcpy call itself. No scheduling before register
        # allocation: it hoists loads and spills inside the register-blocked kernels' loops.
        extra=("-fno-tree-loop-distribute-patterns", "-fno-schedule-insns"),
        link=("-nostdlib", "-lgcc"),
        version=first,
    )
