"""What a run on the virtual platform adds to the report: the simulator's figures (mote.sim.results)
with per-MAC rates, the offloading summary when an accelerator is attached, and each layer's profile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mote.codegen.compile import CompiledModel
from mote.sim.results import SimResult
from mote.targets.base import TargetFigures


@dataclass(frozen=True)
class LayerFigures:
    """One layer between its profiler marks."""

    instructions: int
    cycles: int
    accel_cycles: int
    share: float  # of the run's instructions, rounded to 4 places
    instructions_per_mac: float | None  # None for a layer without MACs
    energy_uj: float | None = None  # on the run's platform (mote.sim.energy); None: not counted
    dma: dict[str, Any] | None = None  # its DMA jobs, bytes and exposed cycles (mote.sim.dma_timing), if any
    cores: tuple[dict[str, Any], ...] = ()  # on a cluster: each core's instructions, busy cycles, utilization

    def to_json(self) -> dict[str, Any]:
        out = {"instructions": self.instructions, "cycles": self.cycles, "accel_cycles": self.accel_cycles,
               "share": self.share, "instructions_per_mac": self.instructions_per_mac, "energy_uj": self.energy_uj,
               **({"dma": self.dma} if self.dma is not None else {})}
        if self.cores:
            out["cores"] = list(self.cores)
        return out


@dataclass(frozen=True)
class OffloadFigures:
    """How the model was split between the accelerator and the CPU."""

    accelerator: str  # its label, settings included
    offloaded_layers: int
    cpu_layers: int  # layers that run code on the CPU (in-place ones do not)


@dataclass(frozen=True)
class SimFigures(TargetFigures):
    """One inference on the virtual platform: `sim` holds the exact counts, cycles, memory and build."""

    sim: SimResult
    instructions_per_mac: float | None
    offload: OffloadFigures | None
    layers: dict[int, LayerFigures]  # by layer index; in-place layers run no code and have none

    @classmethod
    def of(cls, result: SimResult, model: CompiledModel) -> SimFigures:
        macs = model.macs
        offload = None
        if model.accelerator is not None:
            on_cpu = sum(layer.runs_on == "cpu" and layer.kernel != "in place" for layer in model.layers)
            offload = OffloadFigures(model.accelerator.label, sum(layer.runs_on != "cpu" for layer in model.layers),
                                     on_cpu)
        layer_macs = {layer.index: layer.macs for layer in model.layers}
        layers = {}
        for p in result.layers:
            share = p.instructions / result.instructions if result.instructions else 0.0
            per_mac = round(p.instructions / layer_macs[p.index], 3) if layer_macs[p.index] else None
            layers[p.index] = LayerFigures(p.instructions, p.cycles, p.accel_cycles, round(share, 4), per_mac,
                                           p.energy_uj, p.dma.to_json() if p.dma is not None else None,
                                           tuple(p.to_json().get("cores", ())))
        return cls(result, round(result.instructions / macs, 3) if macs else None, offload, layers)

    def to_json(self) -> dict[str, Any]:
        out = self.sim.to_json()
        del out["layer_profile"]  # each layer's figures go to its own entry (layer_json)
        out["instructions_per_mac"] = self.instructions_per_mac
        if self.offload is not None:
            out.update(accelerator=self.offload.accelerator, offloaded_layers=self.offload.offloaded_layers,
                       cpu_layers=self.offload.cpu_layers)
        return out

    def call_json(self) -> dict[str, Any]:
        out = {"instructions": self.sim.instructions, "cycles": self.sim.cycles, "total_cycles": self.sim.total_cycles}
        if self.offload is not None:  # this call's accelerator work (mote.sim: the difference at its marks)
            out.update(accel_cycles=self.sim.accel_cycles, accel_jobs=self.sim.accel_jobs)
        return out

    def layer_json(self, index: int) -> dict[str, Any]:
        layer = self.layers.get(index)
        return layer.to_json() if layer is not None else {}
