"""The timeline of one model_run on the virtual platform (mote.sim.timeline): where each layer, each
accelerator job and each DMA job falls, in cycles from model_run's start.

The clock at a profiler mark is exact: the core model's cycles over the class counts from reset, plus the
memory wait states, plus the DMA stalls before it, plus (timed accelerator) the accelerator's cycles before
it. A layer spans its LAYER_BEGIN to its LAYER_END. An accelerator job starts where the CPU started it: at
the clock of its start store, exact in the same way (the counters at that store, plus the earlier jobs'
cycles when timed); a job without those counters has its instruction count placed between the two marks
around it, the CPU's cycles between them taken to run at an even rate (an interpolation). A DMA job spans
its time on the engine (mote.sim.dma_timing), shifted by the timed accelerator's cycles before it."""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np

from mote.sim.accel_device import AccelStats
from mote.sim.cycles import CoreModel
from mote.sim.devices import Reg
from mote.sim.dma_timing import DmaTimeline
from mote.sim.energy import accesses
from mote.sim.platforms import Platform
from mote.sim.results import LayerProfile
from mote.sim.timeline import ACCEL, CPU, Span, core_track, dma_track

Marks = list[tuple[Any, int, np.ndarray]]


def _stalls(platform: Platform, snap: Any) -> int:
    counted = accesses(platform, None, snap)
    return 0 if counted is None else platform.stall_cycles(*counted)


def run_timeline(marks: Marks, core: CoreModel, platform: Platform, layers: list[LayerProfile],
                 dma: DmaTimeline | None, accel: AccelStats | None, timed: bool) -> list[Span]:
    """The spans of the run within `marks` (its RUN_BEGIN to its RUN_END)."""
    if not marks:
        return []
    log = accel.log if accel is not None else []
    job_insns = [n for _, n, _ in log]
    accel_before = np.cumsum([0, *(c for _, _, c in log)]).tolist()  # accel cycles of the first k jobs

    exposed = np.cumsum([0, *(dma.stalls if dma is not None else ())]).tolist()  # stalls of the first k events

    def dma_exposed(insns: int) -> int:  # the DMA stalls up to instruction `insns` (as DmaTimeline.between)
        return exposed[bisect.bisect_right(dma.at, insns)] if dma is not None else 0

    def at(classes: np.ndarray, snapshot: Any, insns: int, accel_cycles: int) -> int:
        return core.cycles(classes) + _stalls(platform, snapshot) + dma_exposed(insns) + (accel_cycles if timed else 0)

    def clock(k: int) -> int:
        mark, insns, classes = marks[k]
        return at(classes, mark.snapshot, insns, mark.accel_cycles)

    regs = [mark.reg for mark, _, _ in marks]
    if Reg.RUN_BEGIN not in regs or Reg.RUN_END not in regs:
        return []
    first, last = regs.index(Reg.RUN_BEGIN), regs.index(Reg.RUN_END)
    clocks = [clock(k) for k in range(len(marks))]
    origin = clocks[first]
    spans = layer_spans(marks, [c - origin for c in clocks], layers)
    lo, hi = marks[first][1], marks[last][1]
    starts: list[int | None] = [None] * len(log)
    if accel is not None and len(accel.classes) == len(log):  # every job's start store was counted
        starts = [at(classes, snap, snap.instructions, accel_before[j]) - origin
                  for j, (classes, snap) in enumerate(zip(accel.classes, accel.snapshots))]
        job_insns = [snap.instructions for snap in accel.snapshots]
    spans += _accel_spans(marks, clocks, origin, log, timed, lo, hi, starts)
    if dma is not None:
        for span in dma.spans:
            insns = span.job.snapshot.instructions
            if not lo < insns <= hi:
                continue
            shift = accel_before[bisect.bisect_left(job_insns, insns)] if timed else 0
            begin = span.begin + shift - origin
            spans.append(Span(dma_track(span.channel), f"{span.job.source} → {span.job.target}", begin,
                              span.end - span.begin, {"job": span.job.id, "bytes": span.job.nbytes,
                                                      "source": span.job.source, "target": span.job.target,
                                                      "issued_cycle": span.issued + shift - origin}))
    return spans


def layer_spans(marks: Marks, at: list[int], layers: list[LayerProfile]) -> list[Span]:
    """Each layer from its LAYER_BEGIN to its LAYER_END; `at[k]` is mark k's clock from model_run's start."""
    begun: dict[int, int] = {}
    starts: dict[int, tuple[int, int]] = {}
    for k, (mark, _, _) in enumerate(marks):
        if mark.reg is Reg.LAYER_BEGIN:
            begun[mark.value] = k
        elif mark.reg is Reg.LAYER_END and mark.value in begun:
            starts.setdefault(mark.value, (at[begun.pop(mark.value)], at[k]))
    spans = []
    for layer in layers:
        if layer.index in starts:
            start, end = starts[layer.index]
            spans.append(Span(CPU, f"layer {layer.index}", start, end - start, {"layer": layer.index}))
    return spans


def _accel_spans(marks: Marks, clocks: list[int], origin: int, log: list[tuple[int | None, int, int]],
                 timed: bool, lo: int, hi: int, exact: list[int | None]) -> list[Span]:
    """The jobs' spans: at `exact[j]` (from model_run's start) where known, else interpolated."""
    at = [insns for _, insns, _ in marks]
    spent = [mark.accel_cycles for mark, _, _ in marks]
    spans, since, previous = [], 0, -1
    for job, (layer, insns, cycles) in enumerate(log, start=1):
        if not lo < insns <= hi:
            continue
        k = max(0, bisect.bisect_right(at, insns) - 1)  # the last mark at or before the job
        if k != previous:
            since, previous = 0, k
        nxt = min(k + 1, len(marks) - 1)
        cpu = clocks[nxt] - clocks[k] - ((spent[nxt] - spent[k]) if timed else 0)
        frac = (insns - at[k]) / (at[nxt] - at[k]) if at[nxt] > at[k] else 0.0
        known = exact[job - 1]
        start = clocks[k] - origin + round(frac * cpu) + since if known is None else known
        spans.append(Span(ACCEL, f"job {job}" if layer is None else f"layer {layer}", start,
                          cycles if timed else 0, {"job": job, "cycles": cycles, "counted": timed,
                                                   "start": "interpolated" if known is None else "exact",
                                                   **({} if layer is None else {"layer": layer})}))
        if timed:
            since += cycles
    return spans


def core_spans(busy: list[list[int]], waited: list[list[int]], barriers: int, layers: list[int | None],
               origin: int, end: int, barrier_cycles: int) -> list[Span]:
    """Each core's work and waiting on a cluster (mote.sim.cluster_clock), barrier interval by barrier
    interval, from the replayed clocks: busy[k][b] is core k's own cycles at barrier b, waited[k][b] its
    waiting up to that barrier's completion; `layers[b]` the layer core 0 was in when it arrived at barrier
    b (the layer the interval's work belongs to). Spans outside model_run ([origin, end)) are left out."""
    done = [busy[0][b] + waited[0][b] for b in range(barriers)]  # every core's clock when barrier b completes
    spans = []
    for b in range(1, barriers):
        if not (origin <= done[b - 1] and done[b] <= end):
            continue
        layer = layers[b] if b < len(layers) else None
        for k in range(len(busy)):
            if len(busy[k]) <= b:
                continue
            work, start = busy[k][b] - busy[k][b - 1], done[b - 1] - origin
            wait = done[b] - barrier_cycles - (done[b - 1] + work)
            track = core_track(k)
            name = "busy" if layer is None else f"layer {layer}"
            spans.append(Span(track, name, start, work, {"barrier": b, **({} if layer is None else {"layer": layer})}))
            if wait > 0:
                spans.append(Span(track, "barrier wait", start + work, wait, {"barrier": b}))
            spans.append(Span(track, "barrier", done[b] - barrier_cycles - origin, barrier_cycles, {"barrier": b}))
    return spans
