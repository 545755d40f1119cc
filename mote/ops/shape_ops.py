"""RESHAPE and SQUEEZE: the bytes stay as they are, only the shape changes (planned in place)."""

from __future__ import annotations

import numpy as np

from mote.ir import Node
from mote.ops.registry import CCall, Emitter, OpDef, register


def prepare(node: Node) -> int:
    """The number of bytes to move when the planner could not alias input and output."""
    return node.outputs[0].nbytes


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    if x.size != node.outputs[0].size:
        return [(-1,)]  # the verifier reports the mismatch
    return [node.outputs[0].shape]


def reference(node: Node, nbytes: int, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [inputs[0].reshape(node.outputs[0].shape)]


def emit(node: Node, nbytes: int, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_copy", "mote_copy_params", {"bytes": nbytes}, [em.tensor(x), em.tensor(node.outputs[0])])


RESHAPE = register(OpDef("reshape", shape, prepare, reference, emit, in_place=True, tflite=("RESHAPE",)))
SQUEEZE = register(OpDef("squeeze", shape, prepare, reference, emit, in_place=True, tflite=("SQUEEZE",)))
