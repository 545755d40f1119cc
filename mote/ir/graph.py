"""A graph: nodes in execution order, with its input and output tensors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mote.ir.node import Node
from mote.ir.tensor import Tensor
from mote.ir.text import GraphNotes, dump_graph
from mote.ir.verify import check_io, check_order, check_subgraph_io, check_tensors


@dataclass(eq=False)
class Graph:
    name: str
    inputs: list[Tensor]
    outputs: list[Tensor]
    nodes: list[Node] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the frontend assumed (a batch taken as 1), for reports

    @property
    def tensors(self) -> list[Tensor]:
        """Every tensor once, in first-seen order (graph inputs, then node by node)."""
        seen: dict[Tensor, None] = dict.fromkeys(self.inputs)  # tensors hash by identity: a set that keeps order
        for node in self.nodes:
            seen.update(dict.fromkeys(t for t in [*node.inputs, *node.outputs] if t is not None))
        return list(seen)

    @property
    def constants(self) -> list[Tensor]:
        return [t for t in self.tensors if t.is_const]

    def producer(self) -> dict[Tensor, Node]:
        """Each node output -> the node that produces it."""
        return {t: n for n in self.nodes for t in n.outputs}

    def verify(self, each_node: Callable[[Node], None] | None = None) -> None:
        """The structural checks (mote.ir.verify); raise a MoteError if one fails. `each_node` runs on every
        node, in order, once its tensors are checked: mote.ops.validate passes the op-aware checks there."""
        check_tensors(self.name, self.tensors)
        check_io(self.name, self.inputs, self.outputs, self.nodes)
        check_order(self.inputs, self.outputs, self.nodes, each_node)

    def verify_subgraph(self, each_node: Callable[[Node], None] | None = None) -> None:
        """`verify` for a subgraph a control-flow node calls (mote.ir.verify.check_subgraph_io)."""
        check_tensors(self.name, self.tensors)
        check_subgraph_io(self.name, self.inputs, self.outputs)
        check_order(self.inputs, self.outputs, self.nodes, each_node, subgraph=True)

    def dump(self, notes: GraphNotes | None = None) -> str:
        """The graph as text (format in mote.ir.text); `notes` adds what a compiler decided."""
        text = dump_graph(self.name, self.tensors, self.inputs, self.outputs, self.nodes, notes)
        return "".join(f"{g.dump()}\n" for g in self.subgraphs()) + text

    def subgraphs(self) -> list[Graph]:
        """The subgraphs its control-flow nodes call, directly or not, each once, callees before callers."""
        found: dict[Graph, None] = {}
        for node in self.nodes:
            for value in node.attrs.values():
                if isinstance(value, Graph) and value not in found:
                    found.update(dict.fromkeys(value.subgraphs()))
                    found[value] = None
        return list(found)
