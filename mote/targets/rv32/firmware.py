"""The rv32 target: a compiled model -> bare-metal rv32imc firmware for mote's virtual platform, and
runs of it on the simulator (mote.sim).

The project directory gets the generated library (CompiledModel.write: src/ and its build files) plus rv32/:
the reset code, the linker script (flash and RAM sizes from Rv32Config), the device header, the support library
and a firmware main that runs the model once on the inputs the simulator placed in RAM.
"""

from __future__ import annotations

import functools
import shlex
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from mote.codegen.compile import CompiledModel
from mote.codegen.package import SRC
from mote.errors import BuildError, MemoryFitError, MoteError, PlatformError
from mote.ir import Graph
from mote.ops import OPS
from mote.ops.depthwise_band import band_shapes, wide_params
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import Core
from mote.sim.cycles import CoreModel, named_counts
from mote.sim.devices import FLASH_BASE, RAM_BASE, Mark, Reg, c_header
from mote.sim.elf import ElfImage
from mote.sim.energy import accesses, between
from mote.sim.faults import SimulationError
from mote.sim.machine import DEFAULT_INSTRUCTION_LIMIT, Execution, Machine, MemoryMap
from mote.sim.platforms import Platform, builtin
from mote.sim.results import LayerProfile, SimResult
from mote.targets.host import find_cc
from mote.targets.rv32 import micro
from mote.targets.rv32.cluster_result import cluster_result
from mote.targets.rv32.firmware_main import firmware_main, keeps_state
from mote.targets.rv32.levels import l1_bytes, l1_link, level_figures
from mote.targets.rv32.timeline import run_timeline
from mote.targets.rv32.toolchain import ISAS, OPT_LEVELS, Toolchain, find_toolchain

PLATFORM_DIR = "rv32"
FIRMWARE = "firmware.elf"
PAGE = 0x1000
MAX_REGION = 1 << 30  # fits the memory map (mote/sim/devices.py) with room to spare
CLUSTER_FILES = ("mote_cluster.h", "mote_cluster.c")  # the fork-join runtime, in firmware for several cores


@dataclass(frozen=True)
class Rv32Config:
    """The virtual MCU: memory sizes, compiler, and the core's timing and alignment behaviour.

    Flash starts at 0x8000_0000 and RAM at 0x2000_0000 (mote/sim/devices.py); the stack is the top
    `stack_bytes` of RAM."""

    flash_bytes: int = 2 << 20
    ram_bytes: int = 512 << 10
    stack_bytes: int = 16 << 10
    cc: str = "auto"  # "gcc" (riscv64-unknown-elf-gcc) when present, else "zig"; or either by name
    opt: str = "-O2"
    isa: str = "rv32imc"  # or "rv32imfc": the F extension, float kernels in hardware (ilp32f)
    check_alignment: bool = True  # fault on misaligned loads and stores, as most MCU cores do
    core: CoreModel = field(default_factory=CoreModel)
    platform: Platform = field(default_factory=lambda: builtin("mcu"))  # its energy figures (mote.sim.energy)
    cores: int = 1  # cores running the firmware (mote.sim.cluster), each with a stack of stack_bytes

    @property
    def stack_region(self) -> int:
        """The stack region at the top of RAM: every core's stack."""
        return self.cores * self.stack_bytes

    def validate(self) -> None:
        for name in ("flash_bytes", "ram_bytes"):
            value = getattr(self, name)
            if value <= 0 or value % PAGE:
                raise MoteError(f"rv32 {name} must be a positive multiple of 4 KiB, not {value}")
        if self.cores < 1:
            raise MoteError(f"rv32 cores must be at least 1, not {self.cores}")
        if self.stack_bytes <= 0 or self.stack_bytes % 16 or self.stack_region >= self.ram_bytes:
            each = f" (one per core: {self.cores} stacks)" if self.cores > 1 else ""
            raise MoteError(f"rv32 stack_bytes must be a positive multiple of 16 smaller than RAM{each}, "
                            f"not {self.stack_bytes}")
        if max(self.flash_bytes, self.ram_bytes) > MAX_REGION:
            raise MoteError("rv32 flash and RAM are at most 1 GiB each")
        if self.opt not in OPT_LEVELS:
            raise MoteError(f"rv32 opt must be one of {', '.join(OPT_LEVELS)}, not {self.opt!r}")
        if self.isa not in ISAS:
            raise MoteError(f"rv32 isa must be one of {', '.join(ISAS)}, not {self.isa!r}")

    def memory_map(self) -> MemoryMap:
        return MemoryMap(self.flash_bytes, self.ram_bytes, self.stack_region, l1_bytes=l1_bytes(self.platform),
                         dma=bool(self.platform.dma))


@dataclass(frozen=True)
class FirmwareBuild:
    elf: Path
    toolchain: Toolchain
    cflags: tuple[str, ...]
    command: tuple[str, ...]

    @property
    def cc(self) -> str:
        return self.toolchain.version


def platform_files(config: Rv32Config) -> dict[str, str]:
    """rv32/: startup.S, link.ld, mote_vp.h, mote_support.c and a freestanding include/string.h and
    include/math.h (its special values: the float kernels' only use of it) ({path relative to the project:
    text})."""
    files = resources.files("mote.targets.rv32")
    cluster = {f"{PLATFORM_DIR}/{name}": files.joinpath(name).read_text() for name in CLUSTER_FILES} \
        if config.cores > 1 else {}
    return {f"{PLATFORM_DIR}/link.ld": _linker_script(config.flash_bytes, config.ram_bytes, config.stack_region,
                                                      l1_bytes(config.platform)),
            f"{PLATFORM_DIR}/startup.S": files.joinpath("startup.S").read_text(),
            f"{PLATFORM_DIR}/mote_support.c": files.joinpath("mote_support.c").read_text(),
            f"{PLATFORM_DIR}/include/string.h": files.joinpath("string.h").read_text(),
            f"{PLATFORM_DIR}/include/math.h": files.joinpath("math.h").read_text(),
            f"{PLATFORM_DIR}/mote_vp.h": c_header(config.cores, config.stack_bytes), **cluster}


def write_platform_files(project_dir: Path, config: Rv32Config) -> None:
    """Write platform_files(config) into `project_dir`."""
    for rel, text in platform_files(config).items():
        (Path(project_dir) / rel).parent.mkdir(parents=True, exist_ok=True)
        (Path(project_dir) / rel).write_text(text)


def _linker_script(flash_bytes: int, ram_bytes: int, stack_bytes: int, l1: int = 0) -> str:
    template = Template(resources.files("mote.targets.rv32").joinpath("link.ld").read_text())
    return template.substitute(flash_origin=f"0x{FLASH_BASE:08X}", flash_bytes=flash_bytes,
                               ram_origin=f"0x{RAM_BASE:08X}", ram_bytes=ram_bytes, stack_bytes=stack_bytes,
                               **l1_link(l1))


def link_firmware(project_dir: Path, sources: list[str], config: Rv32Config,
                  includes: tuple[str, ...] = ()) -> FirmwareBuild:
    """Compile and link `sources` (paths relative to project_dir) with the platform's reset code and
    support library into project_dir/firmware.elf. The device header is force-included everywhere,
    so MOTE_LAYER_BEGIN/END become profiler stores."""
    toolchain = find_toolchain(config.cc)
    project_dir = Path(project_dir)
    cmd, proc = _compile(toolchain, project_dir, sources, config, includes, "link.ld", FIRMWARE)
    # The exact command, to rebuild by hand.
    script = f'#!/bin/sh\n# Rebuilds {FIRMWARE} (written by mote).\ncd "$(dirname "$0")/.." && exec {shlex.join(cmd)}\n'
    (project_dir / PLATFORM_DIR / "build.sh").write_text(script)
    if proc.returncode != 0:
        if any(key in proc.stderr for key in ("mote: RAM overflow", "region 'RAM'", "region `RAM'",
                                              "region 'FLASH'", "region `FLASH'")):
            raise _fit_error(toolchain, project_dir, sources, config, includes)
        lines = proc.stderr.splitlines()
        first = next((ln for ln in lines if "error" in ln.lower()), proc.stderr.strip()[:300])
        raise BuildError(f"building the rv32 firmware failed: {first.strip()}")
    return FirmwareBuild(project_dir / FIRMWARE, toolchain, toolchain.cflags(config.opt, config.isa), tuple(cmd))


def _compile(toolchain: Toolchain, project_dir: Path, sources: list[str], config: Rv32Config,
             includes: tuple[str, ...], script: str, output: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    platform = [f"{PLATFORM_DIR}/startup.S", f"{PLATFORM_DIR}/mote_support.c",
                *([f"{PLATFORM_DIR}/mote_cluster.c"] if config.cores > 1 else [])]
    cmd = toolchain.command(config.opt, platform + list(sources), output, f"{PLATFORM_DIR}/{script}",
                            includes=[PLATFORM_DIR, *includes], system_includes=[f"{PLATFORM_DIR}/include"],
                            forced=[f"{PLATFORM_DIR}/mote_vp.h"], isa=config.isa)
    try:
        return cmd, subprocess.run(cmd, cwd=project_dir, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise BuildError("building the rv32 firmware timed out after 10 minutes") from None


def _fit_error(toolchain: Toolchain, project_dir: Path, sources: list[str], config: Rv32Config,
               includes: tuple[str, ...]) -> MemoryFitError:
    """The firmware overflowed flash or RAM: link it once more with 1 GiB of each to say by how much."""
    work = project_dir / PLATFORM_DIR
    (work / "measure.ld").write_text(_linker_script(MAX_REGION, MAX_REGION, config.stack_region, MAX_REGION))
    try:
        _, proc = _compile(toolchain, project_dir, sources, config, includes, "measure.ld",
                           f"{PLATFORM_DIR}/measure.elf")
        if proc.returncode != 0:
            return MemoryFitError(f"the firmware does not fit {config.flash_bytes} bytes of flash and "
                                  f"{config.ram_bytes} bytes of RAM with a {config.stack_bytes}-byte stack")
        sizes = {name: size for name, _, size, _ in ElfImage(work / "measure.elf").sections}
        rom, _ = ElfImage(work / "measure.elf").footprint(RAM_BASE, MAX_REGION)
    finally:
        for name in ("measure.ld", "measure.elf"):
            (work / name).unlink(missing_ok=True)
    if rom > config.flash_bytes:
        return MemoryFitError(f"the firmware needs {rom} bytes of flash (code, constants, initial data) "
                              f"but the target has {config.flash_bytes}; give it more flash")
    data, bss, noinit = (sizes.get(s, 0) for s in (".data", ".bss", ".noinit"))
    need = data + bss + noinit + config.stack_region
    return MemoryFitError(
        f"the firmware needs {need} bytes of RAM (.data {data} + .bss {bss} + .noinit {noinit} + "
        f"stack {config.stack_bytes}) but the target has {config.ram_bytes}; "
        "give it more RAM or a smaller stack")


def check_fit(model: CompiledModel, config: Rv32Config) -> None:
    """Fail before compiling when the arena and stack cannot fit RAM, or the weights flash."""
    graph = model.graph
    need = model.plan.size + config.stack_region
    if need > config.ram_bytes:
        raise MemoryFitError(
            f"{graph.name} needs at least {need} bytes of RAM (arena {model.plan.size} + "
            f"stack {config.stack_bytes}, before other static data) but the target has {config.ram_bytes}; "
            "give it more RAM or a smaller stack")
    if model.weights_bytes > config.flash_bytes:
        raise MemoryFitError(f"{graph.name} needs at least {model.weights_bytes} bytes of flash for its weights "
                             f"but the target has {config.flash_bytes}")


def project_files(model: CompiledModel, config: Rv32Config) -> dict[str, str]:
    """rv32/ for `model`: the platform files, the firmware main and the assembly inner loops that the
    chosen kernels' records name (they replace those C files of the library in the build)."""
    return {**platform_files(config),
            f"{PLATFORM_DIR}/main.c": firmware_main(model.graph, model.accelerator is not None, model.names),
            f"{PLATFORM_DIR}/{micro.FILE}": micro_source(model)}


def micro_source(model: CompiledModel) -> str:
    """The assembly for the chosen kernels; the int16 weights' code only where a band layer has them, the
    RequantShift rows' only where a layer has such rows (the integer dialect's fused convolutions)."""
    wide = any(wide_params(p) is not None for p in _band_layers(model))
    return model.names.kernel_text(micro.source(sorted(_twins(model)), _band_shapes(model), wide,
                                                has_requant_shift(model), _band_shapes(model, SINGLE_BODY)))


def has_requant_shift(model: CompiledModel) -> bool:
    """Whether a layer's output-stage table may hold RequantShift rows: the project carries their C (a layer's
    params name mote_output_rest_any_s8, mote.ops.conv2d_kernels.output_rest)."""
    return "mote/mote_output_requant_shift_s8.c" in model.sources


BAND_BODY, SINGLE_BODY = "mote_depthwise_band_s8", "mote_depthwise_band_single_s8"


def _band_layers(model: CompiledModel, body: str = BAND_BODY) -> list[DepthwiseParams]:
    """The params of the layers whose kernel's body is `body` (mote_depthwise_band_s8 or its one-multiply
    twin; of each tile, for a layer tiled into L1)."""
    nodes = model.graph.nodes
    out = []
    for layer in model.layers:
        node = nodes[layer.index] if layer.index < len(nodes) else None
        if body in layer.twins and node is not None and node.name == layer.name:
            params = OPS[node.op].prepare(node)
            plan = (model.tiled or {}).get(layer.index)  # a layer tiled into L1: its tiles' shapes
            out += (list(layer.parts) if layer.parts else  # a split layer's parts (of each tile, if tiled)
                    [plan.rows.params(params, tile) for tile in plan.tiles] if plan else [params])
    return out


def _band_shapes(model: CompiledModel, body: str = BAND_BODY) -> list[tuple[int, ...]]:
    """The band shapes of those layers: the assembly lays out row loops for them (any other shape takes its
    generic loops)."""
    return sorted({shape for p in _band_layers(model, body) for shape in band_shapes(p)})


def _twins(model: CompiledModel) -> set[str]:
    """The assembly functions the chosen kernels' records name."""
    return {name for layer in model.layers for name in layer.twins}


def build_rv32(model: CompiledModel, project_dir: Path, config: Rv32Config | None = None,
               main: str | None = None) -> Rv32Firmware:
    """Write the project (with kernels for a scalar core) to `project_dir` and build
    project_dir/firmware.elf. `main`: the text of another firmware main.c than mote's (one that drives the model
    through an API of its own, e.g. a decoder's model_step). Raises MoteError."""
    config = config or Rv32Config()
    model = model.for_target(Core.SCALAR, l1_bytes(config.platform), config.cores)
    config.validate()
    check_fit(model, config)
    project_dir = Path(project_dir)
    files = project_files(model, config)
    if main is not None:
        files[f"{PLATFORM_DIR}/main.c"] = main
    model.write(project_dir, extra=files)
    build = link_firmware(project_dir, [f"{PLATFORM_DIR}/main.c", f"{PLATFORM_DIR}/{micro.FILE}",
                                        *model_sources(model)], config, includes=(SRC, f"{SRC}/mote"))
    return Rv32Firmware(build, model.graph, config, model.accelerator,
                        {layer.index: layer.macs for layer in model.layers if layer.runs_on != "cpu"})


def model_sources(model: CompiledModel) -> list[str]:
    """The library's C files a firmware compiles (relative to the project): the model's, and the kernels' but for
    those whose assembly twins replace them."""
    twins = _twins(model)
    return [f"{SRC}/{rel}" for rel in sorted(model.sources) if rel.endswith(".c") and Path(rel).stem not in twins]


def build_custom_firmware(sources: dict[str, str], project_dir: Path,
                          config: Rv32Config | None = None) -> FirmwareBuild:
    """Build hand-written firmware ({file name: C or assembly text}) for the platform: it gets the
    reset code (which calls its `main`), the support library and the device header."""
    config = config or Rv32Config()
    config.validate()
    project_dir = Path(project_dir)
    project_dir.mkdir(parents=True, exist_ok=True)
    write_platform_files(project_dir, config)
    for name, text in sources.items():
        (project_dir / name).write_text(text)
    return link_firmware(project_dir, sorted(sources), config)


class Rv32Firmware:
    """A built model firmware; `run` simulates one inference."""

    def __init__(self, build: FirmwareBuild, graph: Graph, config: Rv32Config, accelerator: Any = None,
                 accel_macs: dict[int, int] | None = None) -> None:
        self.build = build
        self.accel_macs = accel_macs or {}  # MACs per offloaded layer, for the accelerator's energy
        self.graph = graph
        self.config = config
        self.accelerator = accelerator  # mapped on the platform when the model offloads to it

    @property
    def elf(self) -> Path:
        return self.build.elf

    @property
    def cc(self) -> str:
        return self.build.cc

    @property
    def cflags(self) -> str:
        return " ".join(self.build.cflags)

    @functools.cached_property
    def machine(self) -> Machine:
        return Machine(self.build.elf, self.config.memory_map(), self.config.check_alignment, self.accelerator,
                       host_cc=find_cc(), fpu=self.config.isa == "rv32imfc")

    def run(self, inputs: dict[str, np.ndarray], instruction_limit: int = DEFAULT_INSTRUCTION_LIMIT) -> SimResult:
        """One inference on the virtual platform: outputs, exact instruction counts, estimated cycles,
        per-layer profile, memory footprint. Raises a mote.sim SimulationError on a fault."""
        if self.config.cores > 1:
            if keeps_state(self.graph):
                raise PlatformError(f"{self.graph.name}: a model with state does not run on {self.config.cores} "
                                    "cores yet; use --cores 1")
            cx = self.machine.run_cluster(self.config.cores, instruction_limit=instruction_limit,
                                          io_inputs=self._input_bytes(inputs),
                                          io_output_sizes=tuple(t.nbytes for t in self.graph.outputs))
            base = self._result(cx.execution, self._outputs(cx.execution.io_outputs), cx.execution.marks)
            return cluster_result(base, cx, self.config.platform, self.config.core)
        if keeps_state(self.graph):
            return self.run_stream([inputs], instruction_limit=instruction_limit)[0]
        ex = self.machine.run(instruction_limit=instruction_limit, io_inputs=self._input_bytes(inputs),
                              io_output_sizes=tuple(t.nbytes for t in self.graph.outputs))
        return self._result(ex, self._outputs(ex.io_outputs), ex.marks)

    def run_stream(self, frames: list[dict[str, np.ndarray]], resets: Iterable[int] = (),
                   instruction_limit: int = DEFAULT_INSTRUCTION_LIMIT) -> list[SimResult]:
        """A stream of frames run in order, one SimResult per frame (its counts and profile those of that
        frame's model_run). A model with state runs the whole stream in one run of the firmware, carrying
        its state from frame to frame; the frames in `resets` start with model_reset(). A model without
        state runs each frame on its own."""
        if not keeps_state(self.graph):
            return [self.run(frame, instruction_limit) for frame in frames]
        if self.config.cores > 1:
            raise PlatformError(f"{self.graph.name}: a model with state does not run on {self.config.cores} "
                                "cores yet; use --cores 1")
        ex = self.machine.run(instruction_limit=instruction_limit,
                              io_output_sizes=tuple(t.nbytes for t in self.graph.outputs),
                              io_stream=tuple(self._input_bytes(frame) for frame in frames),
                              resets=frozenset(resets))
        begins = [k for k, (mk, _, _) in enumerate(ex.marks) if mk.reg is Reg.RUN_BEGIN]
        if len(ex.io_frames) != len(frames) or len(begins) != len(frames):
            raise SimulationError(f"the firmware ran {len(begins)} of the stream's {len(frames)} frames")
        ends = [*begins[1:], len(ex.marks)]
        return [self._result(ex, self._outputs(out), ex.marks[b:e]) for out, b, e in zip(ex.io_frames, begins, ends)]

    def _input_bytes(self, inputs: dict[str, np.ndarray]) -> tuple[bytes, ...]:
        data = []
        for t in self.graph.inputs:
            if t.name not in inputs:
                raise MoteError(f"no value for input {t.name!r}")
            a = np.asarray(inputs[t.name])
            if a.size != t.size:
                raise MoteError(f"input {t.name!r} has {a.size} values, the model wants shape {list(t.shape)}")
            data.append(np.ascontiguousarray(a, dtype=t.dtype.np).tobytes())
        return tuple(data)

    def _outputs(self, io_outputs: dict[int, bytes]) -> dict[str, np.ndarray]:
        return {t.name: np.frombuffer(io_outputs[i], dtype=t.dtype.np).reshape(t.shape).copy()
                for i, t in enumerate(self.graph.outputs)}

    def _result(self, ex: Execution, outputs: dict[str, np.ndarray], marks: list[Any]) -> SimResult:
        """The figures of the model_run within `marks` (a run's marks, or one frame's of a stream)."""
        core = self.config.core
        begin_mark = next((mk for mk, _, _ in marks if mk.reg is Reg.RUN_BEGIN), None)
        end_mark = next((mk for mk, _, _ in marks if mk.reg is Reg.RUN_END), None)
        begin = next(((n, c, mk.snapshot) for mk, n, c in marks if mk.reg is Reg.RUN_BEGIN),
                     (0, ex.class_counts * 0, None))
        end = next(((n, c, mk.snapshot) for mk, n, c in marks if mk.reg is Reg.RUN_END),
                   (ex.instructions, ex.class_counts, ex.exit_snapshot))
        run_classes = end[1] - begin[1]
        rom, ram = self.machine.image.footprint(RAM_BASE, self.config.ram_bytes)
        platform = self.config.platform
        layers = layer_profiles(marks, core, platform, self.accel_macs)
        levels = level_figures(ex, begin[0], end[0], layers, marks, core, platform, self.machine.image, ram)
        counted = accesses(platform, begin[2], end[2])
        timed = ex.accel is not None and self.accelerator is not None and self.accelerator.timed
        # this call's accelerator work: the difference of the run's totals at its marks (a stream runs many
        # calls in one run of the firmware, so the run's totals are every call's)
        jobs = cycles = 0
        if ex.accel is not None:
            cycles = (end_mark.accel_cycles if end_mark else ex.accel.cycles) - \
                (begin_mark.accel_cycles if begin_mark else 0)
            jobs = (end_mark.accel_jobs if end_mark else ex.accel.jobs) - (begin_mark.accel_jobs if begin_mark else 0)
        accel_cycles = cycles if timed else 0
        if not timed:
            for layer in layers:
                layer.accel_cycles = 0
        return SimResult(
            outputs=outputs,
            instructions=end[0] - begin[0],
            cycles=core.cycles(run_classes) + (platform.stall_cycles(*counted) if counted else 0) + levels.exposed,
            class_counts=named_counts(run_classes),
            firmware_instructions=ex.instructions,
            firmware_cycles=(core.cycles(ex.class_counts) + _stalls(platform, None, ex.exit_snapshot)
                             + levels.all_exposed),
            rom_bytes=rom,
            ram_bytes=ram,
            stack_bytes=ex.stack_used,
            stack_limit=self.config.stack_region,
            sim_seconds=ex.seconds,
            sim_mips=ex.mips,
            layers=layers,
            cc=self.cc,
            cflags=self.cflags,
            core=core.name,
            console=ex.console,
            accel_cycles=accel_cycles,
            accel_jobs=jobs,
            platform=platform.name,
            memory_accesses=counted,
            energy=between(platform, named_counts(run_classes), begin[2], end[2], sum(self.accel_macs.values()),
                           levels.dma.total_bytes if levels.dma else 0),
            dma=levels.dma,
            peak_bytes=levels.peak_bytes(rom, ex.stack_used),
            accel_rtl=ex.accel.to_json() if hasattr(ex.accel, "to_json") else None,  # the run's RTL jobs
            timeline=run_timeline(marks, core, platform, layers, levels.timeline, ex.accel, timed),
        )


def _stalls(platform: Platform, start: Any, end: Any) -> int:
    """The cycles loads and stores wait on the platform's memories between two snapshots (0 for the mcu
    platform, whose memories have no wait states)."""
    counted = accesses(platform, start, end)
    return 0 if counted is None else platform.stall_cycles(*counted)


def layer_profiles(marks: list[tuple[Mark, int, np.ndarray]], core: CoreModel, platform: Platform | None = None,
                   accel_macs: dict[int, int] | None = None) -> list[LayerProfile]:
    """Pair each LAYER_BEGIN(i) with the next LAYER_END(i): the instructions and accelerator cycles between
    the two stores, and with a platform their energy (an offloaded layer's with its `accel_macs`)."""
    open_layers: dict[int, tuple[int, np.ndarray, Any]] = {}
    layers = []
    for mark, insns, classes in marks:
        if mark.reg is Reg.LAYER_BEGIN:
            open_layers[mark.value] = (insns, classes, mark)
        elif mark.reg is Reg.LAYER_END and mark.value in open_layers:
            n0, c0, m0 = open_layers.pop(mark.value)
            s0 = m0.snapshot
            diff = classes - c0
            named = named_counts(diff)
            spent = None if platform is None else between(platform, named, s0, mark.snapshot,
                                                          (accel_macs or {}).get(mark.value, 0))
            stalls = 0 if platform is None else _stalls(platform, s0, mark.snapshot)
            layers.append(LayerProfile(mark.value, insns - n0, core.cycles(diff) + stalls, named,
                                       accel_cycles=mark.accel_cycles - m0.accel_cycles, energy=spent))
    return sorted(layers, key=lambda layer: layer.index)
