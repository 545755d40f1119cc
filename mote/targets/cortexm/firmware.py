"""The Cortex-M targets: a compiled model -> bare-metal Thumb firmware for mote's virtual platform with an
Arm M-profile core, and runs of it on the simulator (mote.sim, with mote.sim.isa.cortex_m).

The project directory gets the generated model plus cortexm/: the vector table and reset code, the linker
script (flash and RAM sizes from CortexMConfig), the device header, the support library (rv32's: plain C)
and the firmware main (rv32's: the same devices and marks).
"""

from __future__ import annotations

import dataclasses
import functools
import shlex
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from mote.codegen.compile import CompiledModel
from mote.codegen.package import SRC
from mote.errors import BuildError, MemoryFitError, MoteError
from mote.ops.registry import Core
from mote.sim.cycles import CoreModel
from mote.sim.devices import FLASH_BASE, RAM_BASE, c_header
from mote.sim.isa import cortex_m
from mote.sim.machine import Machine, MemoryMap
from mote.sim.platforms import Platform
from mote.targets.cortexm import cmake
from mote.targets.cortexm.cores import CORES, ArmCore
from mote.targets.cortexm.energy import cortexm_platform
from mote.targets.cortexm.toolchain import find_toolchain
from mote.targets.host import find_cc
from mote.targets.rv32.config import MAX_REGION, PAGE, FirmwareBuild
from mote.targets.rv32.firmware import FIRMWARE, accel_work, check_fit
from mote.targets.rv32.firmware_main import firmware_main
from mote.targets.rv32.simulated import Rv32Firmware
from mote.targets.rv32.toolchain import OPT_LEVELS

PLATFORM_DIR = "cortexm"


@dataclass(frozen=True)
class CortexMConfig:
    """A Cortex-M MCU on the virtual platform: the core (a key of CORES), memory sizes, compiler, and flash
    wait states. Flash starts at 0x8000_0000 and RAM at 0x2000_0000 (mote/sim/devices.py); the stack is the
    top `stack_bytes` of RAM.

    Flash wait states, in the cycle model: code runs from flash through a prefetch buffer that hides the
    wait states of sequential fetches, so each fetch after a discontinuity (a taken branch, a jump) pays
    them; and each data load from flash (weights, constants) pays them too, counted exactly by the memory
    hook (an upper bound: a flash accelerator's data cache, where a part has one, would serve some)."""

    cpu: str = "cortex-m4"
    flash_bytes: int = 2 << 20
    ram_bytes: int = 512 << 10
    stack_bytes: int = 16 << 10
    cc: str = "auto"  # "gcc" (arm-none-eabi-gcc) when present, else "zig"; or either by name
    opt: str = "-O2"
    flash_wait_states: int = 0
    timing: CoreModel | None = None  # None: the core's own (cores.py)
    cores: int = 1  # one core (the rv32 target's cluster is RISC-V only)

    @property
    def stack_region(self) -> int:
        """The stack region at the top of RAM (one core's stack)."""
        return self.stack_bytes

    @property
    def platform(self) -> Platform:
        """The core, memories and wait states the run is costed on: energy (mote.sim.energy) and the
        flash's wait states on data loads (mote.targets.cortexm.energy)."""
        return cortexm_platform(self.cpu, self.arm.arch, self.flash_bytes, self.ram_bytes, self.stack_bytes,
                                self.flash_wait_states)

    @property
    def arm(self) -> ArmCore:
        return CORES[self.cpu]

    @property
    def core(self) -> CoreModel:
        """The cycle model (Rv32Firmware reads it as `core`), with the flash wait states on every fetch after
        a discontinuity."""
        timing = self.timing or self.arm.timing
        ws = self.flash_wait_states
        if not ws:
            return timing
        return dataclasses.replace(timing, name=f"{timing.name}; {ws} flash wait states",
                                   branch_taken=timing.branch_taken + ws, jump=timing.jump + ws)

    @property
    def isa(self) -> str:
        return self.arm.arch

    def validate(self) -> None:
        if self.cpu not in CORES:
            raise MoteError(f"unknown Cortex-M core {self.cpu!r}; cores: {', '.join(CORES)}")
        for name in ("flash_bytes", "ram_bytes"):
            value = getattr(self, name)
            if value <= 0 or value % PAGE or value > MAX_REGION:
                raise MoteError(f"{self.cpu} {name} must be a positive multiple of 4 KiB up to 1 GiB, not {value}")
        if self.stack_bytes <= 0 or self.stack_bytes % 16 or self.stack_bytes >= self.ram_bytes:
            raise MoteError(f"{self.cpu} stack_bytes must be a positive multiple of 16 smaller than RAM, "
                            f"not {self.stack_bytes}")
        if self.opt not in OPT_LEVELS:
            raise MoteError(f"{self.cpu} opt must be one of {', '.join(OPT_LEVELS)}, not {self.opt!r}")
        if not 0 <= self.flash_wait_states <= 15:
            raise MoteError(f"{self.cpu} flash_wait_states must be 0 to 15, not {self.flash_wait_states}")

    def memory_map(self) -> MemoryMap:
        return MemoryMap(self.flash_bytes, self.ram_bytes, self.stack_bytes)


def _linker_script(flash_bytes: int, ram_bytes: int, stack_bytes: int) -> str:
    template = Template(resources.files("mote.targets.cortexm").joinpath("link.ld").read_text())
    return template.substitute(flash_origin=f"0x{FLASH_BASE:08X}", flash_bytes=flash_bytes,
                               ram_origin=f"0x{RAM_BASE:08X}", ram_bytes=ram_bytes, stack_bytes=stack_bytes)


def platform_files(config: CortexMConfig) -> dict[str, str]:
    """cortexm/: startup.S, link.ld, mote_vp.h, mote_support.c and the freestanding include/ headers."""
    own = resources.files("mote.targets.cortexm")
    rv32 = resources.files("mote.targets.rv32")
    return {f"{PLATFORM_DIR}/link.ld": _linker_script(config.flash_bytes, config.ram_bytes, config.stack_bytes),
            f"{PLATFORM_DIR}/startup.S": own.joinpath("startup.S").read_text(),
            f"{PLATFORM_DIR}/mote_support.c": rv32.joinpath("mote_support.c").read_text(),
            f"{PLATFORM_DIR}/include/string.h": rv32.joinpath("string.h").read_text(),
            f"{PLATFORM_DIR}/include/math.h": rv32.joinpath("math.h").read_text(),
            f"{PLATFORM_DIR}/mote_vp.h": c_header(),
            f"{PLATFORM_DIR}/{cmake.FILE}": cmake.toolchain_cmake(config.arm)}


def project_files(model: CompiledModel, config: CortexMConfig) -> dict[str, str]:
    """cortexm/ for `model`: the platform files and the firmware main."""
    return {**platform_files(config),
            f"{PLATFORM_DIR}/main.c": firmware_main(model.graph, model.accelerator is not None, model.names)}


def _compile(config: CortexMConfig, project_dir: Path, sources: list[str], includes: tuple[str, ...],
             script: str, output: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    toolchain = find_toolchain(config.cc, config.arm)
    platform = [f"{PLATFORM_DIR}/startup.S", f"{PLATFORM_DIR}/mote_support.c"]
    cmd = toolchain.command(config.opt, platform + list(sources), output, f"{PLATFORM_DIR}/{script}",
                            includes=[PLATFORM_DIR, *includes], system_includes=[f"{PLATFORM_DIR}/include"],
                            forced=[f"{PLATFORM_DIR}/mote_vp.h"], isa=config.cpu)
    try:
        return cmd, subprocess.run(cmd, cwd=project_dir, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise BuildError(f"building the {config.cpu} firmware timed out after 10 minutes") from None


def link_firmware(project_dir: Path, sources: list[str], config: CortexMConfig,
                  includes: tuple[str, ...] = ()) -> FirmwareBuild:
    """Compile and link `sources` (relative to project_dir) with the reset code and support library into
    project_dir/firmware.elf; cortexm/build.sh rebuilds it by hand."""
    project_dir = Path(project_dir)
    cmd, proc = _compile(config, project_dir, sources, includes, "link.ld", FIRMWARE)
    script = f'#!/bin/sh\n# Rebuilds {FIRMWARE} (written by mote).\ncd "$(dirname "$0")/.." && exec {shlex.join(cmd)}\n'
    (project_dir / PLATFORM_DIR / "build.sh").write_text(script)
    if proc.returncode != 0:
        if any(key in proc.stderr for key in ("mote: RAM overflow", "region 'RAM'", "region `RAM'",
                                              "region 'FLASH'", "region `FLASH'")):
            raise MemoryFitError(f"the firmware does not fit {config.flash_bytes} bytes of flash and "
                                 f"{config.ram_bytes} bytes of RAM with a {config.stack_bytes}-byte stack; "
                                 "give it more")
        lines = proc.stderr.splitlines()
        first = next((ln for ln in lines if "error" in ln.lower()), proc.stderr.strip()[:300])
        raise BuildError(f"building the {config.cpu} firmware failed: {first.strip()}")
    toolchain = find_toolchain(config.cc, config.arm)
    return FirmwareBuild(project_dir / FIRMWARE, toolchain, toolchain.cflags(config.opt, config.cpu), tuple(cmd))


def build_cortexm(model: CompiledModel, project_dir: Path, config: CortexMConfig | None = None,
                  kernels: Core | None = None) -> CortexMFirmware:
    """Write the project (with the kernels of the core's kind, or of `kernels` to compare with another family)
    to `project_dir` and build project_dir/firmware.elf. Raises MoteError."""
    config = config or CortexMConfig()
    config.validate()
    model = model.for_core(kernels or config.arm.kernels)
    check_fit(model, config)  # type: ignore[arg-type]  # the same memory fields as Rv32Config
    project_dir = Path(project_dir)
    model.write(project_dir, extra=project_files(model, config))
    sources = [f"{SRC}/{rel}" for rel in sorted(model.sources) if rel.endswith(".c")]
    build = link_firmware(project_dir, [f"{PLATFORM_DIR}/main.c", *sources], config, includes=(SRC, f"{SRC}/mote"))
    return CortexMFirmware(build, model.graph, config, model.accelerator,  # type: ignore[arg-type]
                           accel_work(model))


def build_custom_firmware(sources: dict[str, str], project_dir: Path,
                          config: CortexMConfig | None = None) -> FirmwareBuild:
    """Build hand-written firmware ({file name: C or assembly text}) for the core: it gets the vector table
    and reset code (which calls its `main`), the support library and the device header."""
    config = config or CortexMConfig()
    config.validate()
    project_dir = Path(project_dir)
    project_dir.mkdir(parents=True, exist_ok=True)
    for rel, text in platform_files(config).items():
        (project_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (project_dir / rel).write_text(text)
    for name, text in sources.items():
        (project_dir / name).write_text(text)
    return link_firmware(project_dir, sorted(sources), config)


def machine(elf: Path, config: CortexMConfig, accelerator: object = None) -> Machine:
    """The virtual platform with `config`'s core running `elf`, with the memory hook (alignment checked as
    the core's ISA record says, loads and stores counted per memory: mote.sim.isa)."""
    isa = cortex_m(config.cpu)
    return Machine(elf, config.memory_map(), isa.memory_hook, accelerator, host_cc=find_cc(), isa=isa)


class CortexMFirmware(Rv32Firmware):
    """A built model firmware for a Cortex-M core; `run` simulates one inference (as Rv32Firmware's), costed
    on the core's platform (CortexMConfig.platform)."""

    config: CortexMConfig  # type: ignore[assignment]

    @functools.cached_property
    def machine(self) -> Machine:
        return machine(self.build.elf, self.config, self.accelerator)
