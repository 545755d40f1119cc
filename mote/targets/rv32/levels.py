"""The memory levels of a platform with an L1 scratchpad, as the rv32 firmware sees them: the L1 region of
its linker script, and what a run reports about them (the DMA's traffic and exposed cycles per run and
per layer, the peak bytes of each memory)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mote.sim.cycles import CoreModel
from mote.sim.devices import L1_BASE, Reg
from mote.sim.dma_timing import DmaFigures, DmaTimeline
from mote.sim.elf import ElfImage
from mote.sim.platform import Execution
from mote.sim.platforms import Platform
from mote.sim.results import LayerProfile


def l1_bytes(platform: Platform) -> int:
    """The L1 the firmware may place tile buffers in: the platform's l1 memory when a DMA feeds it, else 0."""
    l1 = platform.memory("l1")
    return l1.bytes if l1 is not None and platform.l1_dma() is not None else 0


def l1_link(l1: int) -> dict[str, str]:
    """The linker script's L1 memory region and its .l1 section (empty without an L1)."""
    if not l1:
        return {"l1_memory": "", "l1_sections": ""}
    return {"l1_memory": f"  L1 (rw) : ORIGIN = 0x{L1_BASE:08X}, LENGTH = {l1}\n",
            "l1_sections": "  .l1 (NOLOAD) : ALIGN(8) {\n    *(.l1 .l1.*)\n    . = ALIGN(4);\n  } > L1\n"}


@dataclass
class Levels:
    """A run's figures per memory level."""

    dma: DmaFigures | None  # over model_run; None: the platform has no DMA
    exposed: int            # the DMA stall cycles within model_run
    all_exposed: int        # within the whole firmware run
    l1: int                 # the firmware's static L1 (its .l1 section)
    ram: int                # its static RAM (.data, .bss, .noinit)
    platform: Platform
    timeline: DmaTimeline | None = None  # every DMA event's time (mote.sim.dma_timing)

    def peak_bytes(self, rom: int, stack: int) -> dict[str, int]:
        """The most bytes each memory holds at once: flash its ROM, the ram its static data and the
        stack's high-water mark, the L1 its tile buffers (all placed statically)."""
        out = {}
        for memory in self.platform.memories:
            used = {"flash": rom, "ram": self.ram + stack, "l1": self.l1}.get(memory.kind)
            if used is not None:
                out[memory.name] = used
        return out


def _static_l1(image: ElfImage) -> int:
    return sum(size for _, addr, size, _ in image.sections if addr >= L1_BASE and addr < L1_BASE + (1 << 28))


def level_figures(ex: Execution, start: int, end: int, layers: list[LayerProfile], marks: list[Any],
                  core: CoreModel, platform: Platform, image: ElfImage, ram: int) -> Levels:
    """The DMA's figures between instructions `start` and `end` (model_run's marks) and in each layer;
    each layer's exposed DMA cycles are added to its cycles, and its DMA bytes' energy to its energy."""
    if ex.dma is None:
        return Levels(None, 0, 0, _static_l1(image), ram, platform)
    timeline = DmaTimeline(ex.dma, ex.dma_classes, core, platform)
    run = timeline.between(start, end)
    by_index = {layer.index: layer for layer in layers}
    begun: dict[int, int] = {}
    for mark, insns, _ in marks:
        if mark.reg is Reg.LAYER_BEGIN:
            begun[mark.value] = insns
        elif mark.reg is Reg.LAYER_END and mark.value in begun and mark.value in by_index:
            layer = by_index[mark.value]
            figures = timeline.between(begun.pop(mark.value), insns)
            layer.cycles += figures.exposed_cycles
            layer.dma = figures
            if layer.energy is not None and platform.dma:
                dma = platform.l1_dma() or platform.dma[0]
                layer.energy = dataclasses.replace(
                    layer.energy, dma_pj=platform.energy_scale * figures.total_bytes * dma.byte_pj)
    return Levels(run, run.exposed_cycles, timeline.between(-1, ex.instructions).exposed_cycles, _static_l1(image),
                  ram, platform, timeline)
