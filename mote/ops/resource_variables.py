"""Resource variables (a tf.Variable in a stateful model): VAR_HANDLE names one (by its shared name),
READ_VARIABLE copies its value out, ASSIGN_VARIABLE copies a value in. The frontend resolves each handle at
load time (mote.frontend.tflite_control): a resource becomes one state tensor (Tensor.variable), kept across
calls in the state area like SVDF's memory, shaped and typed as the value first assigned to it, and reset as
TFLite Micro resets it (its zero point for int8, else zero). So no VAR_HANDLE node reaches the graph:
`read_variable` takes the state tensor as its input, `assign_variable` writes it as its output. Any dtype:
both only copy bytes."""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register


def _copy_check(node: Node, state: str) -> None:
    checks.input_count(node, 1)
    x, out = checks.present(node, 0, "input"), node.outputs[0]
    var, value = (x, out) if state == "input" else (out, x)
    if not var.variable:
        raise checks.fail(node, f"the resource variable {var.name!r} must be state (a variable tensor)")
    if value.variable:
        raise checks.fail(node, f"the value {value.name!r} must be an activation, not state")
    if var.dtype is not value.dtype or var.shape != value.shape:
        raise checks.fail(node, f"the value {value.name!r} is {value.dtype.value} {list(value.shape)}, the variable "
                                f"{var.name!r} holds {var.dtype.value} {list(var.shape)}; they must be the same")


def check_read(node: Node) -> None:
    _copy_check(node, "input")


def check_assign(node: Node) -> None:
    _copy_check(node, "output")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> int:
    return node.outputs[0].nbytes


def reference(node: Node, nbytes: int, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.array(inputs[0])]


def _bytes(em: Emitter, t: Tensor) -> str:
    """`t`'s bytes as the copy takes them: its arena or state pointer without the cast to its own type."""
    pointer, cast = em.tensor(t), f"({t.dtype.c_type} *)"
    if pointer.startswith(cast):
        return pointer[len(cast):]
    return f"(const int8_t *){pointer}" if t.is_const and t.dtype is not DType.INT8 else pointer


def emit(node: Node, nbytes: int, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_copy", "mote_copy_params", {"bytes": nbytes}, [_bytes(em, x), _bytes(em, node.outputs[0])])


def check_handle(node: Node) -> None:
    raise checks.fail(node, "VAR_HANDLE is resolved when the model is loaded; no node computes it")


def _no_reference(node: Node, params: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    raise AssertionError("VAR_HANDLE makes no node")


ANY = tuple(DType)
register(OpDef("read_variable", shape, prepare, reference, emit, tflite=("READ_VARIABLE",), check=check_read,
               dtypes=ANY))
register(OpDef("assign_variable", shape, prepare, reference, emit, tflite=("ASSIGN_VARIABLE",), check=check_assign,
               dtypes=ANY))
# Listed for the operator table; the frontend turns each handle into the state tensor it names.
register(OpDef("var_handle", shape, prepare, _no_reference, emit, tflite=("VAR_HANDLE",), check=check_handle,
               dtypes=ANY))
