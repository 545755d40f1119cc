"""The rv32 target: a compiled model -> bare-metal rv32imc firmware for mote's virtual
platform (mote.targets.rv32.simulated runs it on the simulator, mote.sim).

The project directory gets the generated library (CompiledModel.write: src/ and its build files) plus rv32/:
the reset code, the linker script (flash and RAM sizes from Rv32Config), the device header, the support library
and a firmware main that runs the model once on the inputs the simulator placed in RAM.
"""

from __future__ import annotations

import shlex
import subprocess
from importlib import resources
from pathlib import Path
from string import Template

from mote.codegen.compile import CompiledModel
from mote.codegen.package import SRC
from mote.errors import BuildError, MemoryFitError
from mote.ops import OPS
from mote.ops.depthwise_band import band_shapes, wide_params
from mote.ops.depthwise_params import DepthwiseParams
from mote.ops.registry import Core
from mote.sim.accel_work import job_work
from mote.sim.devices import FLASH_BASE, RAM_BASE, c_header
from mote.sim.elf import ElfImage
from mote.sim.energy import AccelWork
from mote.targets.rv32 import micro
from mote.targets.rv32.config import MAX_REGION, FirmwareBuild, Rv32Config
from mote.targets.rv32.firmware_main import firmware_main
from mote.targets.rv32.levels import l1_bytes, l1_link
from mote.targets.rv32.simulated import Rv32Firmware
from mote.targets.rv32.toolchain import Toolchain, find_toolchain

PLATFORM_DIR = "rv32"
FIRMWARE = "firmware.elf"
CLUSTER_FILES = ("mote_cluster.h", "mote_cluster.c")  # the fork-join runtime, in firmware for several cores


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
    return Rv32Firmware(build, model.graph, config, model.accelerator, accel_work(model))


def accel_work(model: CompiledModel) -> dict[int, AccelWork]:
    """Per offloaded layer, what its job costs the accelerator in energy (mote.sim.accel_work)."""
    return {layer.index: job_work(model.graph.nodes[layer.index]) for layer in model.layers if layer.runs_on != "cpu"}


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
