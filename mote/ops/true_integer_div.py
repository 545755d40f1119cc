"""TRUE_INTEGER_DIV: the integer dialect's division by a constant y (Deeploy's TrueIntegerDiv), exact.

Deeploy runs it only folded into the RequantShift that follows (MergeTrueIntegerDivRequantShiftPass): the
RequantShift's multiplier times floor(Delta * eta / (y * eta + eps)) (float64, as the pass computes it). mote
computes the same integers in two steps, which the RequantShift's 64-bit arithmetic makes equal:
    out = v * floor(Delta * eta / (y * eta + eps))      (int32),  v = x + input_offset

inputs [x int8]; output int32; attrs factor (the floor above, computed by the frontend).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, int8_in, offset, same_shape
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class TrueIntegerDivParams:
    size: int
    input_offset: int
    factor: int


def factor(delta: float, eta: float, y: float, eps: float) -> int:
    """floor(Delta * eta / (y * eta + eps)) in float64, as Deeploy's merge pass computes it."""
    return int(math.floor((delta * eta) / (y * eta + eps)))


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = int8_in(node, DType.INT32)
    if (128 + abs(offset(x))) * abs(int(attr(node, "factor"))) > INT32_MAX:
        raise checks.fail(node, f"the factor {attr(node, 'factor')} times an 8-bit value leaves int32")


def prepare(node: Node) -> TrueIntegerDivParams:
    x = node.inputs[0]
    assert x is not None
    return TrueIntegerDivParams(x.size, offset(x), int(attr(node, "factor")))


def reference(node: Node, p: TrueIntegerDivParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [((np.asarray(inputs[0], np.int64) + p.input_offset) * p.factor).astype(np.int32)]


def emit(node: Node, p: TrueIntegerDivParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_scale_s8_s32", "mote_scale_s8_s32_params",
                 {"size": p.size, "input_offset": p.input_offset, "factor": p.factor},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    return node.outputs[0].size


OP = register(OpDef("true_integer_div", same_shape, prepare, reference, emit, macs=macs, check=check,
                    attrs={"factor": REQUIRED}))
