"""What a run on a cluster (mote.sim.cluster) reports: the run's and each layer's cycles on the critical
path (mote.sim.cluster_clock), and each core's instructions, busy cycles, utilization and energy.

Core 0's own figures come from its profiler marks as on one core; the other cores' from their counters
at the barriers. Instructions, class counts, memory accesses and energy are summed over the cores;
cycles are the critical path: core 0's clock, which includes its waiting at the barriers and its stalls on
the cluster DMA it alone programs (replayed on its clock: mote.sim.cluster_clock), so the DMA figures (exposed
cycles per run and per layer) are the cluster's, not one core's. The stack figures are one core's: the
largest high-water mark of any core, and each core's stack size."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.sim.cluster import ClusterExecution
from mote.sim.cluster_clock import BARRIER_CYCLES, ClusterClock, DmaTrack, replay
from mote.sim.counting import ClassTally, Snapshot
from mote.sim.cycles import CoreModel, named_counts
from mote.sim.devices import Reg
from mote.sim.dma_timing import DmaTimeline, engine_of
from mote.sim.energy import Energy, accesses, between
from mote.sim.platform import Execution
from mote.sim.platforms import Platform
from mote.sim.results import CoreFigures, LayerProfile, SimResult
from mote.sim.timeline import Span, dma_track
from mote.targets.rv32.timeline import core_spans, layer_spans


def add_energy(a: Energy | None, b: Energy | None) -> Energy | None:
    if a is None or b is None:
        return a or b
    return a + b


def cluster_result(base: SimResult, cx: ClusterExecution, platform: Platform, core_model: CoreModel) -> SimResult:
    """The run's figures from `base`, core 0's own (as on one core), and every core's trace."""
    ex = cx.execution
    # one tally over every core's blocks (the cores run the same code): each core's snapshots name a subset
    tally = ClassTally({addr: insns for t in cx.traces for addr, insns in t.blocks.items()})

    # each snapshot's class counts and cycles, computed once (the replay, the cores' and the layers' figures
    # all ask for the same barrier arrivals); keyed by identity, the snapshots outlive this function's caches
    class_memo: dict[int, np.ndarray] = {}
    cost_memo: dict[int, int] = {}

    def classes(k: int, snap: Snapshot) -> np.ndarray:
        got = class_memo.get(id(snap))
        if got is None:
            got = class_memo[id(snap)] = tally.classes(snap)
        return got

    def cost(k: int, snap: Snapshot) -> int:
        got = cost_memo.get(id(snap))
        if got is None:
            counted = accesses(platform, None, snap)
            got = core_model.cycles(classes(k, snap)) + (platform.stall_cycles(*counted) if counted else 0)
            cost_memo[id(snap)] = got
        return got

    track = None
    if ex.dma is not None and ex.dma.events:
        track = DmaTrack(ex.dma.events, [cost(0, e.snapshot) for e in ex.dma.events],
                         [int(e.snapshot.instructions) for e in ex.dma.events], cx.traces[0].dma_barriers,
                         engine_of(platform))
    clock = replay(cx.traces, cx.barriers, cost, dma=track)
    passed = cx.traces[0].mark_barriers

    def clock0(i: int) -> int:
        return clock.clock(0, ex.marks[i][0].snapshot, passed[i])

    regs = [mk.reg for mk, _, _ in ex.marks]
    begin, end = regs.index(Reg.RUN_BEGIN), regs.index(Reg.RUN_END)
    cores = [CoreFigures(0, base.instructions, base.cycles, base.energy)]
    total_classes = np.array(ex.marks[end][2] - ex.marks[begin][2], dtype=np.int64)  # core 0's, beats included
    energy = base.energy
    for k, trace in enumerate(cx.traces[1:], start=1):
        if not trace.arrivals:  # core 0 finished before this core first ran: no layer was split
            cores.append(CoreFigures(k, 0, 0, None))
            continue
        a0 = trace.arrivals[0]
        a1 = trace.arrivals[cx.barriers] if len(trace.arrivals) > cx.barriers else trace.end
        diff = classes(k, a1) - classes(k, a0)
        spent = between(platform, named_counts(diff), a0, a1)
        cores.append(CoreFigures(k, a1.instructions - a0.instructions, cost(k, a1) - cost(k, a0), spent))
        total_classes += diff
        energy = add_energy(energy, spent)
    critical = clock0(end) - clock0(begin)
    timeline = _cluster_dma(ex, clock, base.layers, core_model, platform)
    in_layer: dict[int | None, list[int]] = {}  # the barriers (but the first) that end inside each layer
    for barrier in range(1, cx.barriers):
        in_layer.setdefault(cx.traces[0].barrier_layers[barrier], []).append(barrier)
    layers = []
    for profile in base.layers:
        b = next(i for i, (mk, _, _) in enumerate(ex.marks) if mk.reg is Reg.LAYER_BEGIN and mk.value == profile.index)
        e = next(i for i, (mk, _, _) in enumerate(ex.marks) if i > b and mk.reg is Reg.LAYER_END
                 and mk.value == profile.index)
        spans = clock.worker_spans(profile.index, in_layer.get(profile.index, []))
        intervals = [(k, trace.arrivals[barrier - 1], trace.arrivals[barrier])
                     for k, trace in enumerate(cx.traces[1:], start=1) for barrier in in_layer.get(profile.index, [])]
        layer_energy = add_energy(profile.energy, _workers_energy(platform, intervals, classes))
        layers.append(dataclasses.replace(
            profile, instructions=profile.instructions + sum(n for _, n in spans), cycles=clock0(e) - clock0(b),
            energy=layer_energy, core_instructions=[profile.instructions, *(n for _, n in spans)],
            core_cycles=[profile.cycles, *(c for c, _ in spans)]))
    dma = timeline.between(ex.marks[begin][1], ex.marks[end][1]) if timeline is not None else base.dma
    at = [clock0(i) - clock0(begin) for i in range(len(ex.marks))]
    spans = [*layer_spans(ex.marks, at, layers),
             *core_spans(clock.busy, clock.waited, cx.barriers, cx.traces[0].barrier_layers, clock0(begin),
                         clock0(end), BARRIER_CYCLES),
             *_dma_spans(clock, ex.marks[begin][1], ex.marks[end][1], clock0(begin))]
    stack = max(cx.stack_used) if cx.stack_used else base.stack_bytes
    return dataclasses.replace(
        base, instructions=sum(c.instructions for c in cores), cycles=critical, stack_bytes=stack,
        stack_limit=base.stack_limit // len(cx.traces),
        class_counts=named_counts(total_classes), layers=layers, energy=energy, cores=cores, timeline=spans,
        dma=dma,
        sim_seconds=cx.seconds, sim_mips=sum(c.instructions for c in cores) / max(cx.seconds, 1e-9) / 1e6,
        platform=platform.name)


@dataclass(frozen=True)
class _Accesses:
    """Loads and stores per counted memory region, summed over intervals (as a Snapshot holds them)."""

    reads: tuple[int, ...]
    writes: tuple[int, ...]


def _workers_energy(platform: Platform, intervals: list[tuple[int, Snapshot, Snapshot]],
                    classes: Callable[[int, Snapshot], np.ndarray]) -> Energy | None:
    """The energy of what the cores did in the intervals (core, start, end): the model is linear in the
    events, so the intervals' class counts and memory accesses are summed first and priced once. None: no
    interval, or memory accesses not counted."""
    if not intervals or any(s.reads is None or e.reads is None for _, s, e in intervals):
        return None
    diff = sum(classes(k, e) - classes(k, s) for k, s, e in intervals)
    regions = len(intervals[0][2].reads)
    total = _Accesses(tuple(sum(e.reads[i] - s.reads[i] for _, s, e in intervals) for i in range(regions)),
                      tuple(sum(e.writes[i] - s.writes[i] for _, s, e in intervals) for i in range(regions)))
    return between(platform, named_counts(diff), None, total)


def _cluster_dma(ex: Execution, clock: ClusterClock, layers: list[LayerProfile], core_model: CoreModel,
                 platform: Platform) -> DmaTimeline | None:
    """Core 0's DMA events with the cluster replay's stalls; each layer's DMA figures and core 0's cycles in it
    (its own, plus its stalls on the cluster's clock) put right, as one core's timing had them."""
    if ex.dma is None or clock.dma_stalls is None or clock.dma_busy is None:
        return None
    timeline = DmaTimeline(ex.dma, ex.dma_classes, core_model, platform)
    timeline.stalls, timeline.busy = clock.dma_stalls, clock.dma_busy
    begun: dict[int, int] = {}
    by_index = {layer.index: layer for layer in layers}
    for mark, insns, _ in ex.marks:
        if mark.reg is Reg.LAYER_BEGIN:
            begun[mark.value] = insns
        elif mark.reg is Reg.LAYER_END and mark.value in begun and mark.value in by_index:
            layer = by_index[mark.value]
            figures = timeline.between(begun.pop(mark.value), insns)
            layer.cycles += figures.exposed_cycles - (layer.dma.exposed_cycles if layer.dma else 0)
            layer.dma = figures
    return timeline


def _dma_spans(clock: ClusterClock, lo: int, hi: int, origin: int) -> list[Span]:
    """The DMA jobs issued within instructions (lo, hi] of core 0, on the cluster's clock from `origin`."""
    out = []
    for span in clock.dma_spans or ():
        if lo < span.job.snapshot.instructions <= hi:
            job = span.job
            out.append(Span(dma_track(span.channel), f"{job.source} → {job.target}", span.begin - origin,
                            span.end - span.begin, {"job": job.id, "bytes": job.nbytes, "source": job.source,
                                                    "target": job.target, "issued_cycle": span.issued - origin}))
    return out
