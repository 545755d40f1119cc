"""State: the variable tensors that ops update in place (an SVDF's memory), kept across calls in a
static area of their own, apart from the arena whose bytes every call reuses."""

from __future__ import annotations

from dataclasses import dataclass

from mote.ir import Graph, Tensor
from mote.memory.arena import align


@dataclass
class StatePlan:
    offsets: dict[Tensor, int]  # every variable tensor's offset, in first-use order
    size: int  # bytes

    def offset(self, t: Tensor) -> int:
        return self.offsets[t]


def plan_state(graph: Graph) -> StatePlan:
    """Each variable tensor after the last, aligned like the arena's buffers."""
    offsets: dict[Tensor, int] = {}
    size = 0
    for t in graph.tensors:
        if t.variable:
            offsets[t] = size
            size = align(size + t.nbytes)
    return StatePlan(offsets, size)
