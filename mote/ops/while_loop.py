"""WHILE (tf.while_loop): the loop-carried tensors start as its inputs; while the cond subgraph gives true on
them, the body subgraph maps them to their next values. Its outputs are their last values. The cond takes
the loop-carried tensors and gives one bool; the body takes and gives them; every one keeps its dtype and
shape from one iteration to the next. Any dtype: the subgraphs compute, WHILE only copies. As in TFLite
Micro the generated C has no bound on the iterations: the cond ends the loop. The reference interpreter
stops at ITERATION_LIMIT, so that a hostile model or input cannot hang `mote run` (which runs it first)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Graph, Node
from mote.ops import checks
from mote.ops.registry import REQUIRED, OpDef, attr, register
from mote.ops.subgraphs import boolean_scalar, first_true, graph_macs, refuse_emit, run_graph, same_tensors

ITERATION_LIMIT = 1 << 20  # far more than a model meant for a microcontroller loops in one call


def _graphs(node: Node) -> tuple[Graph, Graph]:
    return attr(node, "cond_graph"), attr(node, "body_graph")


def check(node: Node) -> None:
    cond, body = _graphs(node)
    if not isinstance(cond, Graph) or not isinstance(body, Graph):
        raise checks.fail(node, "the cond and body must be subgraphs")
    n = len(node.outputs)
    carried = node.inputs[:n]
    if len(carried) != n:
        raise checks.fail(node, f"has {len(node.inputs)} inputs for {n} outputs; a loop carries as many of each")
    for t in node.inputs[n:]:
        if t is None or not t.variable:
            raise checks.fail(node, f"has {len(node.inputs)} inputs for {n} outputs; a loop carries as many of each")
    same_tensors(node, carried, node.outputs, "the loop-carried inputs against the outputs")
    same_tensors(node, node.outputs, cond.inputs, "inputs of the cond")
    same_tensors(node, node.outputs, body.inputs, "inputs of the body")
    same_tensors(node, node.outputs, body.outputs, "outputs of the body (a loop-carried tensor changes)")
    if len(cond.outputs) != 1:
        raise checks.fail(node, f"the cond gives {len(cond.outputs)} outputs; it must give one bool")
    boolean_scalar(node, cond.outputs[0], "cond's output")


def shape(node: Node) -> list[tuple[int, ...]]:
    return [t.shape for t in _graphs(node)[1].outputs]


def prepare(node: Node) -> None:
    return None


def reference(node: Node, params: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    cond, body = _graphs(node)
    n = len(node.outputs)
    state = {t: a for t, a in zip(node.inputs[n:], inputs[n:]) if t is not None}
    carried = [np.array(a) for a in inputs[:n]]
    iterations = 0
    while first_true(run_graph(cond, carried, state)[0]):
        if iterations == ITERATION_LIMIT:
            raise MoteError(f"WHILE {node.name!r}: its cond was still true after {ITERATION_LIMIT:,} iterations; "
                            "mote's reference stops there: check the inputs that set the trip count")
        carried = run_graph(body, carried, state)
        iterations += 1
    return carried


def macs(node: Node) -> int:
    """One iteration's: the cond and the body once (the trip count is known at run time only)."""
    return sum(graph_macs(g) for g in _graphs(node))


register(OpDef("while", shape, prepare, reference, refuse_emit, macs=macs, tflite=("WHILE",), check=check,
               attrs={"cond_graph": REQUIRED, "body_graph": REQUIRED}, dtypes=tuple(DType)))
