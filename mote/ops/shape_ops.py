"""RESHAPE and SQUEEZE: the bytes stay as they are, only the shape changes (planned in place)."""

from __future__ import annotations

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register


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


def check(node: Node) -> None:
    """The data input (RESHAPE's optional shape input is not read: the output tensor's shape rules)."""
    checks.input_count(node, 1, 2)
    x, out = checks.present(node, 0, "input"), node.outputs[0]
    if x.dtype is not out.dtype:
        raise checks.fail(node, f"the input {x.name!r} is {x.dtype.value} but the output {out.name!r} is "
                                f"{out.dtype.value}; a reshape keeps the bytes as they are")


def check_squeeze(node: Node) -> None:
    """As `check`, and TFLite Micro's squeeze rule: the dimensions named (every extent-1 one if none is)
    must be 1, and dropping them must give the output shape."""
    check(node)
    checks.input_count(node, 1)
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    rank, dims = len(x.shape), attr(node, "squeeze_dims")
    if any(not -rank <= d < rank or x.shape[d] != 1 for d in dims):
        raise checks.fail(node, f"squeeze dimensions {list(dims)} are not extent-1 dimensions of the {rank}-D input "
                                f"{list(x.shape)}")
    dropped = {d % rank for d in dims} if dims else {d for d, n in enumerate(x.shape) if n == 1}
    expected = tuple(n for d, n in enumerate(x.shape) if d not in dropped)
    if expected != out.shape:
        raise checks.fail(node, f"squeezing {list(x.shape)} gives {list(expected)}, but the output {out.name!r} is "
                                f"{list(out.shape)}")


RESHAPE = register(OpDef("reshape", shape, prepare, reference, emit, in_place=True, tflite=("RESHAPE",), check=check))
SQUEEZE = register(OpDef("squeeze", shape, prepare, reference, emit, in_place=True, tflite=("SQUEEZE",),
                          check=check_squeeze, attrs={"squeeze_dims": ()}))
