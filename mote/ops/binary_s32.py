"""ADD, SUB, MUL and DIV on int32 tensors (TFLite Micro's unquantized int32 path): a op b on raw values with
numpy broadcasting (DIV truncating toward zero; a zero divisor fails the run), wrapping on overflow as two's
complement, then the fused activation's integer range (NONE:
the whole int32 range; RELU: [0, max]; RELU6: [0, 6]; RELU_N1_TO_1: [-1, 1]). TFLite Micro's int32 ADD
ignores the fused activation (SUB and MUL apply it); mote does the same."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.broadcast import Broadcast, output_shape, plan_broadcast
from mote.ops.registry import CCall, Emitter, attr

RANGES = {"NONE": (-(2**31), 2**31 - 1), "RELU": (0, 2**31 - 1), "RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1)}
def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's integer division, toward zero (the caller has refused zero divisors)."""
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


OPERATIONS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _divide}
CODES = {"add": "MOTE_ARITH_ADD", "sub": "MOTE_ARITH_SUB", "mul": "MOTE_ARITH_MUL", "div": "MOTE_ARITH_DIV"}


@dataclass(frozen=True)
class BinaryS32Params:
    bcast: Broadcast
    act_min: int
    act_max: int


def check(node: Node) -> None:
    checks.input_count(node, 2)
    for index, role in ((0, "first input"), (1, "second input")):
        checks.dtype(node, checks.present(node, index, role), role, DType.INT32)
    checks.dtype(node, node.outputs[0], "output", DType.INT32)
    checks.activation(node)
    output_shape(node)


def prepare(node: Node) -> BinaryS32Params:
    activation = "NONE" if node.op == "add" else attr(node, "activation")  # as TFLite Micro's int32 ADD
    return BinaryS32Params(plan_broadcast(node), *RANGES[activation])


def reference(node: Node, p: BinaryS32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = (np.asarray(v, np.int64) for v in inputs)
    if node.op == "div" and np.any(b == 0):
        raise MoteError(f"node {node.name!r} (div): an int32 division by zero; the C kernel fails the same way")
    wrapped = OPERATIONS[node.op](a, b).astype(np.int32)  # int64 to int32 keeps the low bits
    return [np.clip(wrapped, p.act_min, p.act_max).astype(np.int32).reshape(node.outputs[0].shape)]


def emit(node: Node, p: BinaryS32Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {**p.bcast.fields(em), "operation": CODES[node.op], "act_min": p.act_min,
                                    "act_max": p.act_max}
    return CCall("mote_arith_s32", "mote_arith_s32_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])
