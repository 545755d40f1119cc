"""The timing of a cluster run (mote.sim.cluster), replayed from each core's counters at its barriers.

Each core has its own clock: the cycles of what it executed (its cost function: the core model over its
exact class counts, plus memory wait states), plus the time it waited. A barrier completes when the
last core arrives: every core's clock is then set to the latest arrival plus `barrier_cycles`, the cost
of the barrier itself. So a parallel layer (a fork and a join: two barriers) takes its slowest core's
cycles plus the barriers', whatever order the simulator ran the cores in.

Core 0 runs the model and writes the profiler marks: a span between two of its marks (a layer, the
run) takes the difference of its clock at the two marks. What each other core did between two barriers
belongs to the layer core 0 was in when it arrived at the later one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mote.sim.cluster import CoreTrace
from mote.sim.counting import Snapshot

BARRIER_CYCLES = 8  # an event unit's barrier: the last arrival to every core running again (an estimate)


@dataclass
class ClusterClock:
    """Busy cycles of each core at each barrier it arrived at, and each core's waiting after each barrier."""

    busy: list[list[int]]      # [core][barrier]: own cycles at its arrival
    waited: list[list[int]]    # [core][barrier]: cycles waited up to the completion of that barrier
    cost: Callable[[int, Snapshot], int]
    traces: list[CoreTrace]
    barriers: int

    def clock(self, core: int, snap: Snapshot, passed: int) -> int:
        """Core `core`'s clock at `snap`, after `passed` completed barriers."""
        return self.cost(core, snap) + (self.waited[core][passed - 1] if passed else 0)

    def worker_spans(self, layer: int) -> list[tuple[int, int]]:
        """For each core but 0: (busy cycles, instructions) in the barrier intervals that end inside `layer`."""
        out = []
        layers = self.traces[0].barrier_layers
        for core, trace in enumerate(self.traces[1:], start=1):
            cycles = insns = 0
            for b in range(1, self.barriers):
                if layers[b] == layer:
                    cycles += self.busy[core][b] - self.busy[core][b - 1]
                    insns += trace.arrivals[b].instructions - trace.arrivals[b - 1].instructions
            out.append((cycles, insns))
        return out


def replay(traces: list[CoreTrace], barriers: int, cost: Callable[[int, Snapshot], int],
           barrier_cycles: int = BARRIER_CYCLES) -> ClusterClock:
    """Replay the barriers: `cost(core, snapshot)` is a core's own cycles at a snapshot of its counters."""
    cores = len(traces)
    busy = [[cost(k, t.arrivals[b]) for b in range(len(t.arrivals))] for k, t in enumerate(traces)]
    waited = [[0] * barriers for _ in range(cores)]
    idle = [0] * cores
    for b in range(barriers):
        done = max(busy[k][b] + idle[k] for k in range(cores)) + barrier_cycles
        for k in range(cores):
            idle[k] = done - busy[k][b]
            waited[k][b] = idle[k]
    return ClusterClock(busy, waited, cost, traces, barriers)
