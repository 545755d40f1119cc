"""--platform and --cores: the virtual MCU a run uses, as data (mote.sim.platforms), and how the older
options (--flash, --ram, --stack, --isa, --core) override its fields."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from mote.config import parse_settings
from mote.errors import PlatformError
from mote.sim.cycles import CoreModel
from mote.sim.platform_file import load_platform
from mote.sim.platforms import BUILTIN, Platform, builtin
from mote.targets.rv32.config import Rv32Config


def add_platform_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--platform", metavar="NAME|FILE",
                       help=f"the virtual MCU: a built-in ({', '.join(BUILTIN)}; default mcu) or a .toml/.json "
                            "description (see docs/platforms.md)")
    group.add_argument("--cores", type=int, metavar="N", help="override the platform's number of compute cores")


def find_platform(spec: str, cores: int | None = None) -> Platform:
    """A built-in by name, else a file; --cores N overrides its compute group's core count."""
    platform = builtin(spec) if spec in BUILTIN or not Path(spec).suffix else load_platform(Path(spec))
    if cores is not None:
        if not 1 <= cores <= 64:
            raise PlatformError(f"--cores {cores}: give 1 to 64 cores")
        platform = platform.with_cores(cores)
    return platform


def apply_platform(args: argparse.Namespace) -> None:
    """With --target rv32: resolve --platform/--cores into args.platform_spec (a Platform), and fill in the
    memory sizes, the ISA and the accelerator the options did not give from it. Refuses a platform the VP
    cannot run yet."""
    if getattr(args, "target", None) != "rv32":
        return
    platform = find_platform(args.platform or "mcu", args.cores)
    platform.check_simulated()
    flash, ram = platform.memory("flash"), platform.memory("ram")
    args.flash = args.flash if args.flash is not None else flash.bytes if flash else None
    args.ram = args.ram if args.ram is not None else ram.bytes if ram else None
    args.stack = args.stack if args.stack is not None else platform.stack_bytes
    args.isa = args.isa if args.isa is not None else platform.compute.isa
    attached = [slot.accel for slot in platform.accelerators if slot.accel]
    if getattr(args, "accel", None) is None and attached:
        args.accel = attached[0]  # the platform's accelerator, unless --accel names another
    args.platform_spec = platform


def rv32_config(args: argparse.Namespace) -> Rv32Config:
    """The rv32 target's configuration from the settled arguments (after apply_platform and
    settle_rv32_options): the platform's core timing with --core's costs over it."""
    platform: Platform = getattr(args, "platform_spec", None) or builtin("mcu")
    core = platform.compute.cycles
    if args.core:
        given = parse_settings(CoreModel, args.core, "--core")
        keys = [part.partition("=")[0].strip() for part in args.core.split(",") if part.strip()]
        core = dataclasses.replace(core, **{k: getattr(given, k) for k in keys},
                                   name=f"{core.name}; with {args.core}")
    return Rv32Config(flash_bytes=args.flash, ram_bytes=args.ram, stack_bytes=args.stack, cc=args.cc, opt=args.opt,
                      isa=args.isa, core=core, platform=platform, cores=platform.compute.count)
