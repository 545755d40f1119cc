"""Partitioning: which nodes the accelerator runs, which stay on the CPU, and why."""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.accel.interface import INT32_SPLIT, STAGES, Accelerator, Pattern
from mote.accel.packing import OperandBits
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


def narrow_operands(node: Node, modes: OperandBits) -> list[str]:
    """Why `node` cannot run in any of the accelerator's operand modes: each input narrower than 8 bits
    (Tensor.bits) whose width no mode takes (constants: the weight modes; others: the activation modes)."""
    reasons = []
    for t in node.inputs:
        if t is None or t.bits == 8:
            continue
        kind, widths = ("weights", modes.weights) if t.is_const else ("activations", modes.activations)
        if t.bits not in widths:
            reasons.append(f"int{t.bits} {kind} ({t.name}): no int{t.bits} {kind} mode "
                           f"(modes: {', '.join(f'int{b}' for b in widths)})")
    return reasons


def partition(graph: Graph, accel: Accelerator) -> list[Decision]:
    """Every node the accelerator's patterns and predicates accept is offloaded (first pattern wins),
    unless it has sub-byte operands of a width none of its modes takes (narrow_operands)."""
    patterns = accel.patterns()
    modes = accel.operand_bits()
    for p in patterns:
        _check_stages(p, accel.name)
    decisions = []
    for node in graph.nodes:
        decision = Decision(node, None)
        if node.attrs.get("legacy_uint8"):  # mote.frontend.tflite_uint8: semantics accelerators do not declare
            decision.rejected["legacy uint8"] = ["weights' zero point or uint8 rounding: CPU kernels only"]
            decisions.append(decision)
            continue
        narrow = narrow_operands(node, modes) if any(p.op == node.op for p in patterns) else []
        if narrow:  # the CPU's kernels take any width (one value per int8 in the IR)
            decision.rejected["operand widths"] = narrow
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
