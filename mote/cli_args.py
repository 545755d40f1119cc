"""Checks on the `mote` command's arguments that argparse cannot make alone: bounded numbers, the
`--opt -Os` spelling, options of the virtual MCU given to the host target, one-line parse errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from mote.config import parse_size
from mote.errors import MoteError
from mote.terminal import plain

# rv32-only options: their defaults (None in the parser, so that a given one can be told apart) and
# why the host target cannot use them.
RV32_ONLY = {
    "cc": ("auto", "--cc picks the rv32 cross compiler; the host target builds with the system C compiler (CC)"),
    "opt": ("-O2", "--opt sets the rv32 firmware's optimization level; the host target builds with -O2"),
    "isa": ("rv32imc", "--isa picks the virtual MCU's instruction set; the host target runs native code"),
    "flash": (2 << 20, "--flash sizes the virtual MCU; it has no effect with --target host"),
    "ram": (512 << 10, "--ram sizes the virtual MCU; it has no effect with --target host"),
    "stack": (16 << 10, "--stack sizes the virtual MCU; it has no effect with --target host"),
    "instruction_limit": (None, "--instruction-limit stops firmware on the virtual MCU; the host target runs "
                                "native code"),
    "core": ("", "--core sets the virtual MCU's cycle model; the host target does not count cycles"),
    "accel": (None, "--accel attaches an accelerator to the virtual MCU; use --target rv32"),
    "platform": ("mcu", "--platform picks the virtual MCU; the host target runs native code"),
    "cores": (None, "--cores sets the virtual MCU's core count; the host target runs native code"),
    "flash_wait_states": (0, "--flash-wait-states sets a Cortex-M core's flash timing; use a --target cortex-m*"),
    "trace": (None, "--trace writes the virtual MCU's timeline (layers, accelerator, DMA, cores); use --target rv32"),
    "clock_mhz": (100.0, "--clock-mhz converts the virtual MCU's cycles to time in --trace; use --target rv32"),
}
# The options of the virtual MCU that the Cortex-M targets take too (the others pick rv32's ISA and
# platform); --flash-wait-states is theirs alone.
CORTEX_M_OPTIONS = frozenset({"cc", "opt", "flash", "ram", "stack", "instruction_limit", "accel", "flash_wait_states"})


class Parser(argparse.ArgumentParser):
    """argparse with its errors as one line (`mote: error: ...`), exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"mote: error: {plain(message)} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(2)


def joined_opt_values(argv: list[str]) -> list[str]:
    """`--opt -Os` as one argument: argparse takes a value that starts with '-' for an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--opt" and i + 1 < len(argv) and argv[i + 1].startswith("-O"):
            out.append(f"--opt={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a decimal integer within [low, high]."""
    def convert(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low:,} to {high:,})")
        return value
    convert.__name__ = "integer"
    return convert


def clock_mhz(text: str) -> float:
    """An argparse type: a clock frequency in MHz, above 0 and at most 100 GHz."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of MHz") from None
    if not 0 < value <= 100_000:
        raise argparse.ArgumentTypeError(f"{text} MHz is out of range (above 0, at most 100000)")
    return value


def size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def settle_rv32_options(args: argparse.Namespace) -> None:
    """Refuse the virtual MCU's options with a target that does not take them; fill in the defaults of
    those not given."""
    cortex_m = args.target.startswith("cortex-m")
    for name, (default, why) in RV32_ONLY.items():
        if not hasattr(args, name):
            continue
        given = getattr(args, name) is not None
        takes = name in CORTEX_M_OPTIONS if cortex_m else args.target == "rv32" and name != "flash_wait_states"
        if given and not takes:
            if cortex_m:
                option = f"--{name.replace('_', '-')}"
                why = f"{option} configures rv32's virtual MCU; --target {args.target} does not take it"
            raise MoteError(why)
        if not given:
            setattr(args, name, default)
