"""The op-aware checks every frontend runs after loading, and the compiler after each pass.

`verify_graph` is the IR's structural check (Graph.verify) plus, node by node, the registry: the op
exists, its `check` passes, its shape rule agrees with the node's outputs. `validate` adds each
node's `prepare` once, so that the compiler and the reference interpreter meet no surprise later.
Every failure is a MoteError with a one-line message naming the node.
"""

from __future__ import annotations

from mote.errors import GraphError, MoteError, UnsupportedError
from mote.ir import Graph, Node
from mote.ops.registry import OPS


def verify_graph(graph: Graph) -> None:
    """Well-formedness: tensors, graph inputs and outputs, execution order, op checks and shape rules."""
    graph.verify(_check_node)


def validate(graph: Graph, subgraph: bool = False) -> None:
    """`verify_graph` (for a subgraph a control-flow node calls, its own structural check), then every node's
    `prepare` once: after this, compiling and interpreting the graph raise nothing but MoteErrors."""
    if subgraph:
        graph.verify_subgraph(_check_node)
    else:
        verify_graph(graph)
    for node in graph.nodes:
        try:
            OPS[node.op].prepare(node)
        except MoteError as e:
            message = str(e)
            if not message.startswith("node "):  # a helper that does not know the node: say which
                raise type(e)(f"node {node.name!r} ({node.op}): {message}") from None
            raise
        except Exception as e:  # a case no check foresaw: still one line, naming the node
            raise UnsupportedError(f"node {node.name!r} ({node.op}): mote cannot compile this node "
                                   f"({type(e).__name__}: {e}); please report it with the model") from None


def _check_node(node: Node) -> None:
    op = OPS.get(node.op)
    if op is None:
        raise GraphError(f"node {node.name!r}: unknown op {node.op!r}")
    op.check(node)
    expected = [tuple(s) for s in op.shape(node)]
    actual = [t.shape for t in node.outputs]
    if expected != actual:
        raise GraphError(f"node {node.name!r} ({node.op}): output shapes {actual}, the op rule says {expected}")
