"""What the control-flow ops (IF, WHILE, CALL_ONCE) share: running a subgraph in numpy, the checks between a
caller's tensors and its callee's, and the state a subgraph touches.

A control-flow node holds the Graphs it calls in its attributes (`then_graph`, `body_graph`, ...). Its inputs are
its TFLite inputs followed by the state tensors its callees read or write (variable tensors, resource variables),
so that the reference interpreter hands it their arrays and state planning sees them; its outputs are its TFLite
outputs. Values pass between caller and callee by copies, as TFLite Micro copies them: the callee's inputs are
filled from the caller's tensors, the caller's outputs from the callee's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mote.ir import DType, Graph, Node, Tensor
from mote.ops import checks
from mote.ops.registry import OPS, CCall


def callees(node: Node) -> list[Graph]:
    """The subgraphs a node calls (none for an ordinary op), in attribute order."""
    return [v for v in node.attrs.values() if isinstance(v, Graph)]


def state_of(graphs: Sequence[Graph]) -> list[Tensor]:
    """The state tensors the graphs read or write, their callees' included (their nodes list those as inputs)."""
    return list(dict.fromkeys(t for g in graphs for t in g.tensors if t.variable))


def run_nodes(nodes: Sequence[Node], values: dict[Tensor, np.ndarray]) -> None:
    """Run nodes in order on `values` (tensor -> array), adding their outputs. A node that writes state
    writes it in place, into the array every holder of `values` shares."""
    for node in nodes:
        op = OPS[node.op]
        args = [None if t is None else (t.data if t.is_const else values[t]) for t in node.inputs]
        results = op.reference(node, op.prepare(node), args)
        for t, value in zip(node.outputs, results):
            array = np.asarray(value).astype(t.dtype.np).reshape(t.shape)
            if t.variable:
                values[t][...] = array
            else:
                values[t] = array


def run_graph(graph: Graph, args: Sequence[np.ndarray], state: dict[Tensor, np.ndarray]) -> list[np.ndarray]:
    """A subgraph's outputs (fresh arrays) for `args` copied into its inputs; `state` is updated in place."""
    values = dict(state)
    for t, value in zip(graph.inputs, args):
        values[t] = np.array(value, dtype=t.dtype.np).reshape(t.shape)
    run_nodes(graph.nodes, values)
    return [np.array(t.data if t.is_const else values[t]) for t in graph.outputs]


def first_true(value: np.ndarray) -> bool:
    """A condition tensor as TFLite Micro reads it: its first element."""
    return bool(np.asarray(value).reshape(-1)[0])


def same_tensors(node: Node, mine: Sequence[Tensor | None], theirs: Sequence[Tensor], what: str) -> None:
    """Caller tensors and callee tensors pair up one to one, each pair of the same dtype and shape (TFLite Micro
    copies their bytes; mote needs the layouts equal)."""
    if len(mine) != len(theirs):
        raise checks.fail(node, f"{what}: {len(mine)} tensors against {len(theirs)}; they must pair up one to one "
                                "(the file is damaged)")
    for k, (a, b) in enumerate(zip(mine, theirs)):
        if a is None:
            raise checks.fail(node, f"{what}: tensor {k} is missing")
        if a.variable:  # the state a node's callees touch follows its own inputs: never one of them
            raise checks.fail(node, f"{what}: tensor {k} ({a.name!r}) is state; state is not passed to subgraphs")
        if a.dtype is not b.dtype or a.shape != b.shape:
            raise checks.fail(node, f"{what}: tensor {k} is {a.dtype.value} {list(a.shape)} against "
                                    f"{b.dtype.value} {list(b.shape)}; they must be the same")


def boolean_scalar(node: Node, t: Tensor | None, role: str) -> Tensor:
    if t is None or t.dtype is not DType.BOOL or t.size != 1:
        got = "missing" if t is None else f"{t.dtype.value} {list(t.shape)}"
        raise checks.fail(node, f"the {role} must be one bool value, got {got}")
    return t


def graph_macs(graph: Graph) -> int:
    return sum(OPS[n.op].macs(n) for n in graph.nodes)


def refuse_emit(node: Node, params: object, em: object) -> CCall:
    raise AssertionError(f"{node.op} is emitted by mote.codegen.control, not through a kernel call")
