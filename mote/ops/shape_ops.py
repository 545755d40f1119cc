"""RESHAPE, SQUEEZE and EXPAND_DIMS: the bytes stay as they are, only the shape changes (planned in place).
Any dtype: nothing is computed."""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
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


def check_expand_dims(node: Node) -> None:
    """As `check`, with a constant axis in [-rank - 1, rank] whose insertion gives the output shape."""
    checks.input_count(node, 2)
    check(node)
    x, axis_t, out = node.inputs[0], checks.present(node, 1, "axis"), node.outputs[0]
    assert x is not None
    checks.dtype(node, axis_t, "axis", DType.INT32, DType.INT64)
    checks.constant(node, axis_t, "axis")
    if axis_t.size != 1:
        raise checks.fail(node, f"the axis {axis_t.name!r} holds {axis_t.size} values; it must be one")
    rank, axis = len(x.shape), int(np.asarray(axis_t.data).reshape(-1)[0])
    if not -rank - 1 <= axis <= rank:
        raise checks.fail(node, f"axis {axis} is out of range for a {rank}-D input")
    axis = axis % (rank + 1)
    expected = (*x.shape[:axis], 1, *x.shape[axis:])
    if expected != out.shape:
        raise checks.fail(node, f"expanding {list(x.shape)} at axis {axis} gives {list(expected)}, but the output "
                                f"{out.name!r} is {list(out.shape)}")


ANY = (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)
RESHAPE = register(OpDef("reshape", shape, prepare, reference, emit, in_place=True, tflite=("RESHAPE",), check=check,
                         dtypes=ANY))
SQUEEZE = register(OpDef("squeeze", shape, prepare, reference, emit, in_place=True, tflite=("SQUEEZE",),
                          check=check_squeeze, attrs={"squeeze_dims": ()}, dtypes=ANY))
EXPAND_DIMS = register(OpDef("expand_dims", shape, prepare, reference, emit, in_place=True, tflite=("EXPAND_DIMS",),
                             check=check_expand_dims, dtypes=ANY))
