"""CALL_ONCE (a stateful model's initializer, the subgraph that assigns its variables their first values):
runs its init subgraph on the model's first call and never again, until model_reset() clears the state. Its
"has run" flag is a bool of state (Tensor.variable), which the node takes as input 0 and writes as its one
output, set only when the init subgraph succeeds, as TFLite Micro sets it. TFLite Micro's own Reset() zeroes
the variables but leaves the flag set, so that its init never runs again; model_reset() returns to the state
of a freshly started model, as a new interpreter starts."""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ir import DType, Graph, Node
from mote.ops import checks
from mote.ops.registry import REQUIRED, OpDef, attr, register
from mote.ops.subgraphs import first_true, graph_macs, refuse_emit, run_graph


def check(node: Node) -> None:
    init = attr(node, "init_graph")
    if not isinstance(init, Graph):
        raise checks.fail(node, "the init must be a subgraph")
    if init.inputs:
        raise checks.fail(node, f"the init subgraph takes {len(init.inputs)} inputs; CALL_ONCE passes none")
    flag = node.inputs[0] if node.inputs else None
    if (flag is None or not flag.variable or flag.dtype is not DType.BOOL or flag.size != 1
            or node.outputs != [flag]):
        raise checks.fail(node, "input 0 and the one output must be its flag: one bool of state")
    for t in node.inputs[1:]:
        if t is None or not t.variable:
            raise checks.fail(node, "takes no inputs but its flag and the state its init subgraph touches")


def shape(node: Node) -> list[tuple[int, ...]]:
    return [(1,)]


def prepare(node: Node) -> None:
    return None


def reference(node: Node, params: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if not first_true(inputs[0]):
        state = {t: a for t, a in zip(node.inputs[1:], inputs[1:]) if t is not None}
        run_graph(attr(node, "init_graph"), [], state)
    return [np.ones(1, dtype=bool)]


def macs(node: Node) -> int:
    return graph_macs(attr(node, "init_graph"))


register(OpDef("call_once", shape, prepare, reference, refuse_emit, macs=macs, tflite=("CALL_ONCE",), check=check,
               attrs={"init_graph": REQUIRED}, dtypes=tuple(DType)))
