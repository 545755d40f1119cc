"""A built rv32 firmware run on the virtual platform (mote.sim): one inference, or a stream of frames for a model
with state, and the figures of each model_run: outputs, exact instruction counts, cycles, per-layer profile,
memory footprint, energy."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from mote.errors import MoteError, PlatformError
from mote.ir import Graph
from mote.sim.cycles import CoreModel, named_counts
from mote.sim.devices import RAM_BASE, Mark, Reg
from mote.sim.energy import AccelWork, accel_slot, accesses, between
from mote.sim.faults import SimulationError
from mote.sim.machine import DEFAULT_INSTRUCTION_LIMIT, Execution, Machine
from mote.sim.platforms import Platform
from mote.sim.results import LayerProfile, SimResult
from mote.targets.host import find_cc
from mote.targets.rv32.cluster_result import cluster_result
from mote.targets.rv32.config import FirmwareBuild, Rv32Config
from mote.targets.rv32.firmware_main import keeps_state
from mote.targets.rv32.levels import level_figures
from mote.targets.rv32.timeline import run_timeline

if TYPE_CHECKING:
    from pathlib import Path


class Rv32Firmware:
    """A built model firmware; `run` simulates one inference."""

    def __init__(self, build: FirmwareBuild, graph: Graph, config: Rv32Config, accelerator: Any = None,
                 accel_work: dict[int, AccelWork] | None = None) -> None:
        self.build = build
        # per offloaded layer, what its job costs the accelerator in energy (MACs, SRAM and DMA bytes)
        self.accel_work = accel_work or {}
        self.graph = graph
        self.config = config
        self.accelerator = accelerator  # mapped on the platform when the model offloads to it

    @property
    def accel_total(self) -> AccelWork | None:
        """The accelerator's work in one inference: every offloaded layer's (each runs once); None: none."""
        works = list(self.accel_work.values())
        return sum(works[1:], works[0]) if works else None

    @functools.cached_property
    def accel_slot(self) -> Any:
        """The accelerator's energy figures on the platform, its SRAM priced by the size it declares."""
        hardware = self.accelerator.hardware() if self.accelerator is not None else None
        return accel_slot(self.config.platform, hardware.sram_bytes if hardware is not None else 0)

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
        layers = layer_profiles(marks, core, platform, self.accel_work, self.accel_slot)
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
            energy=between(platform, named_counts(run_classes), begin[2], end[2], self.accel_total,
                           levels.dma.total_bytes if levels.dma else 0, self.accel_slot),
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
                   accel_work: dict[int, AccelWork] | None = None, slot: Any = None) -> list[LayerProfile]:
    """Pair each LAYER_BEGIN(i) with the next LAYER_END(i): the instructions and accelerator cycles between
    the two stores, and with a platform their energy (an offloaded layer's with its `accel_work`, priced
    with the accelerator's figures `slot`, mote.sim.energy.accel_slot)."""
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
                                                          (accel_work or {}).get(mark.value), slot=slot)
            stalls = 0 if platform is None else _stalls(platform, s0, mark.snapshot)
            layers.append(LayerProfile(mark.value, insns - n0, core.cycles(diff) + stalls, named,
                                       accel_cycles=mark.accel_cycles - m0.accel_cycles, energy=spent))
    return sorted(layers, key=lambda layer: layer.index)
