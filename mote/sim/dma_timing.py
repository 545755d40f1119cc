"""When the DMA's jobs run, and how long the core waits for them: a model applied after the run to the
exact counters at each START and WAIT (mote.sim.dma_device).

The model (docs/platforms.md, "DMA timing"):
- A job issued at core cycle t (the core model's cycles to its START load, memory wait states and the
  DMA stalls before it included) occupies the engine for `setup + ceil(bytes / bytes_per_cycle)` cycles.
  The engine moves one job at a time, in the order they start: a job begins at max(t, the end of the
  job before it). `setup` is the platform DMA's `setup_cycles` (16 unless the platform says otherwise).
- At most `channels` jobs are in flight (issued and not finished): a START while that many are stalls
  the core until the oldest of them finishes.
- A WAIT at core cycle t for a job that ends at e > t stalls the core e - t cycles; a WAIT for a finished
  job costs nothing beyond its instructions.
The stalls are the exposed DMA cycles, added to the run's cycles (and to each layer's, by where they
fall). The core's own instructions that program the registers are counted like any others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mote.sim.cycles import CoreModel
from mote.sim.dma_device import DmaJob, DmaLog, DmaWait
from mote.sim.energy import accesses
from mote.sim.platforms import Dma, Platform


@dataclass
class DmaFigures:
    """The DMA's work over a span of a run."""

    jobs: int = 0
    busy_cycles: int = 0     # the engine's time on those jobs
    exposed_cycles: int = 0  # the core's stalls on them (in the span's cycles)
    bytes: dict[str, dict[str, int]] = field(default_factory=dict)  # memory name -> {"read": n, "written": n}

    @property
    def total_bytes(self) -> int:
        return sum(v["read"] for v in self.bytes.values())

    def to_json(self) -> dict[str, Any]:
        return {"jobs": self.jobs, "bytes": self.total_bytes, "bytes_per_memory": self.bytes,
                "busy_cycles": self.busy_cycles, "exposed_cycles": self.exposed_cycles}


def _duration(dma: Dma, nbytes: int) -> int:
    return dma.setup_cycles + -(-nbytes // dma.bytes_per_cycle)


@dataclass(frozen=True)
class JobSpan:
    """When one job ran on the engine (core cycles from reset, the core's DMA stalls before it included) and
    which of the `channels` in-flight slots it took (the lowest one free when it was issued)."""

    job: DmaJob
    issued: int
    begin: int
    end: int
    channel: int


class DmaEngine:
    """The engine's state under the model in the module docstring, fed one event at a time with the issuing
    core's clock at it (a cluster's core 0 has barrier waits in its clock: mote.sim.cluster_clock)."""

    def __init__(self, dma: Dma) -> None:
        self.dma = dma
        self.ends: dict[int, int] = {}
        self.free = 0
        self.busy: list[int] = []  # each job's engine time, by job id - 1
        self.spans: list[JobSpan] = []  # each job's, in order
        self.slots = [0] * max(1, dma.channels)  # each in-flight slot's current job's end

    def step(self, event: DmaJob | DmaWait, now: int) -> int:
        """The core's stall at `event`, issued at core cycle `now`."""
        stall = 0
        if isinstance(event, DmaJob):
            in_flight = sorted(e for e in self.ends.values() if e > now)
            if len(in_flight) >= self.dma.channels:
                stall = in_flight[len(in_flight) - self.dma.channels] - now
                now += stall
            duration = _duration(self.dma, event.nbytes)
            begin = max(now, self.free)
            self.ends[event.id] = self.free = begin + duration
            self.busy.append(duration)
            channel = min(range(len(self.slots)), key=lambda c: (self.slots[c] > now, c))
            self.slots[channel] = self.free
            self.spans.append(JobSpan(event, now, begin, self.free, channel))
        else:
            stall = max(0, self.ends[event.job] - now)
        return stall


def engine_of(platform: Platform) -> Dma:
    """The DMA that feeds the platform's L1 (else its first; else a default one)."""
    return platform.l1_dma() or (platform.dma[0] if platform.dma else Dma("ram", "l1"))


def schedule(events: list[DmaJob | DmaWait], core_cycles: list[int], dma: Dma) -> tuple[list[int], list[int]]:
    """The core's stall at each event (in order; `core_cycles[k]` is event k's core cycle without DMA
    stalls) and each job's engine time (by job id - 1), under the model in the module docstring."""
    stalls, busy, _ = _schedule(events, core_cycles, dma)
    return stalls, busy


def _schedule(events: list[DmaJob | DmaWait], core_cycles: list[int],
              dma: Dma) -> tuple[list[int], list[int], list[JobSpan]]:
    engine = DmaEngine(dma)
    stalls: list[int] = []
    delay = 0
    for event, cycle in zip(events, core_cycles):
        stall = engine.step(event, cycle + delay)
        delay += stall
        stalls.append(stall)
    return stalls, engine.busy, engine.spans


class DmaTimeline:
    """A run's DMA events with their exact instruction counts, their stalls and their bytes, to sum over
    any span (the whole model_run, one layer). `classes[k]` are the instructions per class at event k."""

    def __init__(self, log: DmaLog, classes: list[np.ndarray], core: CoreModel, platform: Platform) -> None:
        self.events = log.events
        self.platform = platform
        self.at = [int(e.snapshot.instructions) for e in self.events]
        cycles = []
        for event, counts in zip(self.events, classes):
            counted = accesses(platform, None, event.snapshot)
            cycles.append(core.cycles(counts) + (platform.stall_cycles(*counted) if counted else 0))
        self.cycles = cycles  # each event's core cycle, without DMA stalls
        self.stalls, self.busy, self.spans = _schedule(self.events, cycles, engine_of(platform))

    def _name(self, kind: str) -> str:
        memory = self.platform.memory(kind)
        return memory.name if memory is not None else kind

    def between(self, start: int, end: int) -> DmaFigures:
        """The events after instruction `start` up to instruction `end` (counts from reset)."""
        out = DmaFigures()
        for k, event in enumerate(self.events):
            if not start < self.at[k] <= end:
                continue
            out.exposed_cycles += self.stalls[k]
            if isinstance(event, DmaJob):
                out.jobs += 1
                out.busy_cycles += self.busy[event.id - 1]
                for kind, way in ((event.source, "read"), (event.target, "written")):
                    level = out.bytes.setdefault(self._name(kind), {"read": 0, "written": 0})
                    level[way] += event.nbytes
        return out
