"""ADD_S32: exact integer addition (subtraction, multiplication) to int32 (the integer dialect's Add, Sub and
Mul), with numpy broadcasting.

    out = (a + a_offset) + (b + b_offset)      arith "add" (offsets: minus the zero points; int8 or int32 inputs)
    out = (a + a_offset) - (b + b_offset)      arith "sub"
    out = (a + a_offset) * (b + b_offset)      arith "mul"
wrapped to int32 as the C kernel's int32 result (the compiler cannot bound int32 activations).
inputs [a, b] (int8 or int32, activations or constants).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.fixedpoint import wrap32
from mote.ir import DType, Node, Tensor
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

ARITH = {"add": 0, "sub": 1, "mul": 2}


@dataclass(frozen=True)
class AddS32Params:
    bcast: Broadcast
    a_bytes: int  # 1 (int8) or 4 (int32)
    b_bytes: int
    a_offset: int
    b_offset: int
    arith: int  # ARITH's code


def _offset(node: Node, t: Tensor | None) -> tuple[int, int]:
    if t is None or t.dtype not in (DType.INT8, DType.INT32):
        raise UnsupportedError(f"node {node.name!r} (add_s32): inputs must be int8 or int32")
    return t.dtype.itemsize, 0 if t.quant is None else -t.quant.zero_point[0]


def prepare(node: Node) -> AddS32Params:
    if node.outputs[0].dtype is not DType.INT32:
        raise UnsupportedError(f"node {node.name!r} (add_s32): the output must be int32")
    (a_bytes, a_off), (b_bytes, b_off) = _offset(node, node.inputs[0]), _offset(node, node.inputs[1])
    kind = attr(node, "arith")
    if kind not in ARITH:
        raise UnsupportedError(f"node {node.name!r} (add_s32): arith {kind!r} is not one of {sorted(ARITH)}")
    return AddS32Params(plan_broadcast(node), a_bytes, b_bytes, a_off, b_off, ARITH[kind])


def reference(node: Node, p: AddS32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = broadcast_inputs(node, inputs)
    a, b = a.astype(np.int64) + p.a_offset, b.astype(np.int64) + p.b_offset
    if p.arith == ARITH["mul"]:  # the product of two int32-range values, wrapped as the C kernel's uint64 product
        out = ((a.astype(np.uint64) * b.astype(np.uint64)) & np.uint64(0xFFFFFFFF)).astype(np.int64)
        return [np.where(out >= 2**31, out - 2**32, out).astype(np.int32)]
    return [wrap32(a - b if p.arith == ARITH["sub"] else a + b).astype(np.int32)]


def emit(node: Node, p: AddS32Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields = p.bcast.fields(em)
    fields.update({k: v for k, v in vars(p).items() if k != "bcast"})
    args = [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])]
    return CCall("mote_add_s32", "mote_add_s32_params", fields, args)


OP = register(OpDef("add_s32", output_shape, prepare, reference, emit, attrs={"arith": "add"},
                    dtypes=(DType.INT8, DType.INT32)))
