"""IF (tf.cond): runs its then subgraph when the condition's first value is true, else its else subgraph. Inputs:
the condition (one bool), then the branch inputs (copied into the branch's inputs); outputs: the branch's
outputs, copied out. Both branches take and give the same tensors (mote.ops.subgraphs). Any dtype: the
branches compute, IF only copies."""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ir import DType, Graph, Node
from mote.ops import checks
from mote.ops.registry import REQUIRED, OpDef, attr, register
from mote.ops.subgraphs import boolean_scalar, first_true, graph_macs, refuse_emit, run_graph, same_tensors


def _branches(node: Node) -> tuple[Graph, Graph]:
    return attr(node, "then_graph"), attr(node, "else_graph")


def branch_inputs(node: Node) -> int:
    """How many inputs go to the branch (the rest after them are state its branches touch)."""
    return len(_branches(node)[0].inputs)


def check(node: Node) -> None:
    then, other = _branches(node)
    if not isinstance(then, Graph) or not isinstance(other, Graph):
        raise checks.fail(node, "the then and else branches must be subgraphs")
    if not node.inputs:
        raise checks.fail(node, "has no condition input")
    boolean_scalar(node, node.inputs[0], "condition")
    if node.inputs[0] is not None and node.inputs[0].variable:
        raise checks.fail(node, "has no condition input (input 0 is state)")
    n = len(then.inputs)
    for name, branch in (("then", then), ("else", other)):
        if len(node.inputs) < 1 + n:
            raise checks.fail(node, f"the {name} branch takes {len(branch.inputs)} inputs, IF passes "
                                    f"{len(node.inputs) - 1}")
        same_tensors(node, node.inputs[1:1 + n], branch.inputs, f"inputs of the {name} branch")
        same_tensors(node, node.outputs, branch.outputs, f"outputs of the {name} branch")
    for t in node.inputs[1 + n:]:
        if t is None or not t.variable:
            raise checks.fail(node, f"IF passes {len(node.inputs) - 1} inputs, its branches take {n}")


def shape(node: Node) -> list[tuple[int, ...]]:
    return [t.shape for t in _branches(node)[0].outputs]


def prepare(node: Node) -> None:
    return None


def reference(node: Node, params: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    then, other = _branches(node)
    n = len(then.inputs)
    state = {t: a for t, a in zip(node.inputs[1 + n:], inputs[1 + n:]) if t is not None}
    return run_graph(then if first_true(inputs[0]) else other, inputs[1:1 + n], state)


def macs(node: Node) -> int:
    """The larger branch's."""
    return max(graph_macs(g) for g in _branches(node))


register(OpDef("if", shape, prepare, reference, refuse_emit, macs=macs, tflite=("IF",), check=check,
               attrs={"then_graph": REQUIRED, "else_graph": REQUIRED}, dtypes=tuple(DType)))
