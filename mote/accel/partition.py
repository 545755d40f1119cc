"""Partitioning: which nodes the accelerator runs, which stay on the CPU, and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.accel.interface import INT32_SPLIT, STAGES, Accelerator, Pattern
from mote.errors import AcceleratorError
from mote.ir import Graph, Node


@dataclass
class Decision:
    node: Node
    pattern: Pattern | None  # None: the node runs on the CPU
    rejected: dict[str, list[str]] = field(default_factory=dict)  # pattern name -> predicates it failed

    @property
    def offloaded(self) -> bool:
        return self.pattern is not None

    def why_not(self) -> str:
        """For a CPU node: the predicates that rejected it, or that no pattern runs its op."""
        if not self.rejected:
            return f"no pattern for {self.node.op}"
        return "; ".join(f"{name}: {', '.join(failed)}" for name, failed in self.rejected.items())


def _check_stages(pattern: Pattern, accelerator: str) -> None:
    if pattern.covers_all():
        if pattern.cpu_stride:
            raise AcceleratorError(f"accelerator {accelerator}: pattern {pattern.name!r}: cpu_stride needs a "
                                   "pattern that stops at the int32 accumulator (the CPU subsamples while "
                                   "requantizing)")
        return
    stages = STAGES.get(pattern.op, ())
    if pattern.stages != stages[:len(pattern.stages)] or pattern.stages[-1:] != INT32_SPLIT:
        raise AcceleratorError(f"accelerator {accelerator}: pattern {pattern.name!r}: stages {pattern.stages} "
                               f"must be all of {pattern.op}'s {stages} or end with {INT32_SPLIT[0]!r} (the CPU "
                               "then requantizes)")


def partition(graph: Graph, accel: Accelerator) -> list[Decision]:
    """Every node the accelerator's patterns and predicates accept is offloaded (first pattern wins)."""
    patterns = accel.patterns()
    for p in patterns:
        _check_stages(p, accel.name)
    decisions = []
    for node in graph.nodes:
        decision = Decision(node, None)
        if node.attrs.get("legacy_uint8"):  # mote.frontend.tflite_uint8: semantics accelerators do not declare
            decision.rejected["legacy uint8"] = ["weights' zero point or uint8 rounding: CPU kernels only"]
            decisions.append(decision)
            continue
        for p in patterns:
            if p.op != node.op:
                continue
            failed = p.rejections(node, accel.name)
            if not failed:
                decision.pattern = p
                break
            decision.rejected[p.name] = failed
        decisions.append(decision)
    return decisions


def regions(decisions: list[Decision]) -> list[list[int]]:
    """Runs of adjacent offloaded nodes (indices into the graph's nodes)."""
    runs: list[list[int]] = []
    for i, d in enumerate(decisions):
        if not d.offloaded:
            continue
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs
