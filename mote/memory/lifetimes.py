"""Buffers and their lifetimes: what must be in the arena, and when."""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.ir import Graph, Node, Tensor
from mote.ops import OPS
from mote.ops.registry import Overlap


@dataclass(eq=False)
class Buffer:
    """One region of the arena: a tensor (with any tensors aliased to it in place) or a node's scratch."""

    name: str
    size: int  # bytes
    start: int  # first step it is live (node index; -1 for graph inputs)
    end: int  # last step it is live (inclusive)
    tensors: list[Tensor] = field(default_factory=list)
    scratch_of: Node | None = None  # the node whose scratch buffer this is

    def overlaps(self, other: Buffer) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass
class Buffers:
    all: list[Buffer]
    of_tensor: dict[Tensor, Buffer]  # every non-constant tensor's buffer
    of_scratch: dict[int, Buffer]  # node index -> its scratch buffer, where it has one
    shares: dict[tuple[Buffer, Buffer], Overlap] = field(default_factory=dict)  # (output, input) buffers


def buffers(graph: Graph, scratch: dict[int, int], overlaps: dict[int, list[tuple[int, Overlap]]] | None = None
            ) -> Buffers:
    """Every arena buffer: one per activation (Tensor.in_arena; aliases shared), one per node scratch.

    `scratch` maps node index -> scratch bytes; a scratch buffer lives for its node only.
    In-place ops (reshape, squeeze) put their output in their input's buffer. `overlaps` maps node
    index -> (input index, Overlap): where that input's buffer ends at the node, the node's output
    buffer may share bytes with it as the Overlap says.
    """
    last = len(graph.nodes)
    of_tensor: dict[Tensor, Buffer] = {}
    of_scratch: dict[int, Buffer] = {}
    result: list[Buffer] = []

    def new(t: Tensor, step: int) -> None:
        buf = Buffer(t.name, t.nbytes, step, step, [t])
        of_tensor[t] = buf
        result.append(buf)

    for t in graph.inputs:
        new(t, -1)
    for i, node in enumerate(graph.nodes):
        for t in node.inputs:
            if t is not None and t.in_arena:
                of_tensor[t].end = max(of_tensor[t].end, i)
        x = node.inputs[0] if node.inputs else None
        for t in node.outputs:
            if not t.in_arena:  # state a node writes lives in the state area
                continue
            if OPS[node.op].in_place and x is not None and x.in_arena and x.nbytes == t.nbytes:
                buf = of_tensor[x]
                buf.tensors.append(t)
                buf.end = max(buf.end, i)
                of_tensor[t] = buf
            else:
                new(t, i)
        if scratch.get(i, 0) > 0:
            of_scratch[i] = Buffer(f"{node.name} (scratch)", scratch[i], i, i, scratch_of=node)
            result.append(of_scratch[i])
    for t in graph.outputs:
        if t.in_arena:  # a subgraph's output may be a constant
            of_tensor[t].end = last
    shares: dict[tuple[Buffer, Buffer], Overlap] = {}
    for i, pairs in (overlaps or {}).items():
        node = graph.nodes[i]
        if not node.outputs[0].in_arena:
            continue
        out = of_tensor[node.outputs[0]]
        for k, overlap in pairs:
            x = node.inputs[k]
            if x is None or not x.in_arena or of_tensor[x] is out or of_tensor[x].end != i:
                continue
            shares[(out, of_tensor[x])] = overlap
    return Buffers(result, of_tensor, of_scratch, shares)


def lower_bound(bufs: list[Buffer]) -> int:
    """The most bytes live at any one step: no plan that keeps live buffers apart can use less (one
    whose kernels let an output overlap its input can)."""
    steps = {b.start for b in bufs} | {b.end for b in bufs}
    return max((sum(b.size for b in bufs if b.start <= s <= b.end) for s in steps), default=0)
