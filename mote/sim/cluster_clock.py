"""The timing of a cluster run (mote.sim.cluster), replayed from each core's counters at its barriers.

Each core has its own clock: the cycles of what it executed (its cost function: the core model over its
exact class counts, plus memory wait states), plus the time it waited. A barrier completes when the
last core arrives: every core's clock is then set to the latest arrival plus `barrier_cycles`, the cost
of the barrier itself. So a parallel layer (a fork and a join: two barriers) takes its slowest core's
cycles plus the barriers', whatever order the simulator ran the cores in.

Core 0 runs the model and writes the profiler marks: a span between two of its marks (a layer, the
run) takes the difference of its clock at the two marks. What each other core did between two barriers
belongs to the layer core 0 was in when it arrived at the later one.

The cluster DMA is programmed by core 0 alone (mote.sim.cluster): its events are replayed in the same pass,
each at core 0's clock (its own cycles, its barrier waits and its earlier DMA stalls), through one engine
(mote.sim.dma_timing). A stall delays core 0, hence the barrier it arrives at next and every core after it:
exposed DMA is on the critical path, DMA hidden behind the cores' compute is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mote.sim.cluster import CoreTrace
from mote.sim.counting import Snapshot
from mote.sim.dma_device import DmaJob, DmaWait
from mote.sim.dma_timing import DmaEngine, JobSpan
from mote.sim.platforms import Dma

BARRIER_CYCLES = 8  # an event unit's barrier: the last arrival to every core running again (an estimate)


@dataclass
class DmaTrack:
    """Core 0's DMA events: each one's own cycles (no waits, no stalls), instruction count and the barriers
    core 0 had arrived at before it; the engine's parameters."""

    events: list[DmaJob | DmaWait]
    own: list[int]
    at: list[int]
    passed: list[int]
    dma: Dma


@dataclass
class ClusterClock:
    """Busy cycles of each core at each barrier it arrived at, and each core's waiting after each barrier."""

    busy: list[list[int]]      # [core][barrier]: own cycles at its arrival
    waited: list[list[int]]    # [core][barrier]: cycles waited up to the completion of that barrier
    cost: Callable[[int, Snapshot], int]
    traces: list[CoreTrace]
    barriers: int
    dma: DmaTrack | None = None
    dma_stalls: list[int] | None = None  # core 0's stall at each DMA event
    dma_busy: list[int] | None = None    # each job's engine time, by job id - 1
    dma_spans: list[JobSpan] | None = None  # each job's time on the engine, on core 0's clock

    def clock(self, core: int, snap: Snapshot, passed: int) -> int:
        """Core `core`'s clock at `snap`, after `passed` completed barriers (core 0's with its DMA stalls
        since the last of them)."""
        stalls = 0
        if core == 0 and self.dma is not None and self.dma_stalls is not None:
            stalls = sum(s for s, b, at in zip(self.dma_stalls, self.dma.passed, self.dma.at)
                         if b == passed and at <= snap.instructions)
        return self.cost(core, snap) + (self.waited[core][passed - 1] if passed else 0) + stalls

    def worker_spans(self, layer: int, barriers: list[int] | None = None) -> list[tuple[int, int]]:
        """For each core but 0: (busy cycles, instructions) in the barrier intervals that end inside `layer`
        (`barriers`: those barriers, but the first, if the caller has them)."""
        out = []
        layers = self.traces[0].barrier_layers
        if barriers is None:
            barriers = [b for b in range(1, self.barriers) if layers[b] == layer]
        for core, trace in enumerate(self.traces[1:], start=1):
            cycles = insns = 0
            for b in barriers:
                cycles += self.busy[core][b] - self.busy[core][b - 1]
                insns += trace.arrivals[b].instructions - trace.arrivals[b - 1].instructions
            out.append((cycles, insns))
        return out


def replay(traces: list[CoreTrace], barriers: int, cost: Callable[[int, Snapshot], int],
           barrier_cycles: int = BARRIER_CYCLES, dma: DmaTrack | None = None) -> ClusterClock:
    """Replay the barriers: `cost(core, snapshot)` is a core's own cycles at a snapshot of its counters;
    `dma` core 0's DMA events, replayed on its clock (the module docstring)."""
    cores = len(traces)
    busy = [[cost(k, t.arrivals[b]) for b in range(len(t.arrivals))] for k, t in enumerate(traces)]
    waited = [[0] * barriers for _ in range(cores)]
    idle = [0] * cores  # each core's clock less its own cycles (core 0's DMA stalls included)
    engine = DmaEngine(dma.dma) if dma is not None else None
    stalls: list[int] = []

    def dma_until(barrier: int) -> None:  # core 0's DMA events before its arrival at `barrier`
        assert dma is not None and engine is not None
        while len(stalls) < len(dma.events) and dma.passed[len(stalls)] <= barrier:
            e = len(stalls)
            stall = engine.step(dma.events[e], dma.own[e] + idle[0])
            idle[0] += stall
            stalls.append(stall)

    for b in range(barriers):
        if engine is not None:
            dma_until(b)
        done = max(busy[k][b] + idle[k] for k in range(cores)) + barrier_cycles
        for k in range(cores):
            idle[k] = done - busy[k][b]
            waited[k][b] = idle[k]
    if engine is not None:  # and those after its last barrier
        dma_until(len(traces[0].arrivals) + 1)
    return ClusterClock(busy, waited, cost, traces, barriers, dma, stalls if engine else None,
                        engine.busy if engine else None, engine.spans if engine else None)
