"""A graph: nodes in execution order, with its input and output tensors."""

from __future__ import annotations

from dataclasses import dataclass, field

from mote.errors import GraphError
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
        """Check that the graph is well formed: topological order, shapes agree with the op rules."""
        from mote.ops import registry  # the registry imports the IR, not the other way round

        available = {id(t) for t in self.inputs}
        for node in self.nodes:
            if node.op not in registry.OPS:
                raise GraphError(f"node {node.name!r}: unknown op {node.op!r}")
            for t in node.inputs:
                if t is not None and not t.is_const and id(t) not in available:
                    raise GraphError(f"node {node.name!r}: input {t.name!r} is used before it is produced")
            for t in node.outputs:
                if id(t) in available:
                    raise GraphError(f"node {node.name!r}: output {t.name!r} is produced twice")
                available.add(id(t))
            expected = registry.OPS[node.op].shape(node)
            actual = [t.shape for t in node.outputs]
            if [tuple(s) for s in expected] != actual:
                raise GraphError(f"node {node.name!r} ({node.op}): output shapes {actual}, the op rule says {expected}")
        for t in self.outputs:
            if id(t) not in available:
                raise GraphError(f"graph output {t.name!r} is never produced")
