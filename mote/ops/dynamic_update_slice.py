"""DYNAMIC_UPDATE_SLICE: the operand with `update` written over it from runtime start indices (int32 or int64,
one per dimension), each clamped to [0, operand - update] as TFLite Micro clamps them. Bytes are copied as
they are (float32, int8, int16, int32)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register

DTYPES = (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32)
MAX_RANK = 6  # MOTE_UPDATE_SLICE_MAX_DIMS


@dataclass(frozen=True)
class UpdateSliceParams:
    operand: tuple[int, ...]
    update: tuple[int, ...]
    element_bytes: int
    wide_indices: bool  # int64 start indices


def check(node: Node) -> None:
    checks.input_count(node, 3)
    x, u, s = (checks.present(node, i, role) for i, role in enumerate(("operand", "update", "start indices")))
    checks.dtype(node, x, "operand", *DTYPES)
    checks.dtype(node, u, "update", x.dtype)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    checks.dtype(node, s, "start indices", DType.INT32, DType.INT64)
    if not 1 <= len(x.shape) <= MAX_RANK or len(u.shape) != len(x.shape) or s.shape != (len(x.shape),) or \
            any(a > b for a, b in zip(u.shape, x.shape)):
        raise checks.fail(node, f"update {list(u.shape)} and start indices {list(s.shape)} do not fit the operand "
                                f"{list(x.shape)} (1-D to {MAX_RANK}-D)")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> UpdateSliceParams:
    x, u, s = node.inputs
    assert x is not None and u is not None and s is not None
    return UpdateSliceParams(x.shape, u.shape, x.dtype.itemsize, s.dtype is DType.INT64)


def reference(node: Node, p: UpdateSliceParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = np.array(inputs[0], copy=True).reshape(p.operand)
    starts = np.clip(np.asarray(inputs[2], np.int64).reshape(-1), 0, np.subtract(p.operand, p.update))
    out[tuple(slice(int(b), int(b) + n) for b, n in zip(starts, p.update))] = np.asarray(inputs[1]).reshape(p.update)
    return [out]


def emit(node: Node, p: UpdateSliceParams, em: Emitter) -> CCall:
    x, u, s = node.inputs
    assert x is not None and u is not None and s is not None
    fields: dict[str, int | str] = {
        "rank": len(p.operand), "operand_shape": em.const(np.array(p.operand, np.int32), "update_slice_shape"),
        "update_shape": em.const(np.array(p.update, np.int32), "update_slice_shape"),
        "element_bytes": p.element_bytes, "wide_indices": int(p.wide_indices)}
    return CCall("mote_dynamic_update_slice", "mote_dynamic_update_slice_params", fields,
                 [em.tensor(x), em.tensor(u), em.tensor(s), em.tensor(node.outputs[0])])


OP = register(OpDef("dynamic_update_slice", shape, prepare, reference, emit, tflite=("DYNAMIC_UPDATE_SLICE",),
                    check=check, dtypes=DTYPES))
