"""A graph: nodes in execution order, with its input and output tensors."""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.ir.node import Node
from mote.ir.tensor import Tensor


@dataclass(eq=False)
class Graph:
    name: str
    inputs: list[Tensor]
    outputs: list[Tensor]
    nodes: list[Node] = field(default_factory=list)

    @property
    def tensors(self) -> list[Tensor]:
        """Every tensor once, in first-seen order (graph inputs, then node by node)."""
        seen: dict[int, Tensor] = {}
        for t in self.inputs:
            seen.setdefault(id(t), t)
        for node in self.nodes:
            for t in [*node.inputs, *node.outputs]:
                if t is not None:
                    seen.setdefault(id(t), t)
        return list(seen.values())

    @property
    def constants(self) -> list[Tensor]:
        return [t for t in self.tensors if t.is_const]

    def producer(self) -> dict[int, Node]:
        return {id(t): n for n in self.nodes for t in n.outputs}

    def verify(self) -> None:
        """Check that the graph is well formed (mote.ir.verify.verify_graph); raise a MoteError if not."""
        from mote.ir.verify import verify_graph

        verify_graph(self)
