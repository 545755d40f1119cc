"""Tensors made without reading the input's values: ZEROS_LIKE (raw zeros, as TFLite Micro writes them, even
for quantized tensors), FILL (the output filled with its scalar value input) and SHAPE (the input's shape,
known at compile time, as int32 or int64).

  zeros_like  inputs [x]                                    float32, int8, int32, int64
  fill        inputs [dims (constant), value (a scalar)]    float32, int8, int32 values
  shape       inputs [x]; the output's dtype gives out_type any input dtype
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register

DTYPES = {"zeros_like": (DType.FLOAT32, DType.INT8, DType.INT32, DType.INT64),
          "fill": (DType.FLOAT32, DType.INT8, DType.INT32),
          "shape": (DType.FLOAT32, DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)}


@dataclass(frozen=True)
class CreationParams:
    count: int  # output elements
    element_bytes: int


def check(node: Node) -> None:
    out = node.outputs[0]
    if node.op == "fill":
        checks.input_count(node, 2)
        dims, value = checks.present(node, 0, "dims"), checks.present(node, 1, "value")
        checks.dtype(node, dims, "dims", DType.INT32, DType.INT64)
        checks.constant(node, dims, "dims")
        checks.dtype(node, value, "value", *DTYPES["fill"])
        checks.dtype(node, out, "output", value.dtype)
        if value.size != 1:
            raise checks.fail(node, f"the value {value.name!r} holds {value.size} values; FILL takes a scalar")
        return
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *DTYPES[node.op])
    checks.dtype(node, out, "output", *((x.dtype,) if node.op == "zeros_like" else (DType.INT32, DType.INT64)))


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    if node.op == "zeros_like":
        return [x.shape]
    if node.op == "shape":
        return [(len(x.shape),)]
    return [tuple(int(d) for d in np.asarray(x.data).reshape(-1))]


def prepare(node: Node) -> CreationParams:
    out = node.outputs[0]
    return CreationParams(out.size, out.dtype.itemsize)


def reference(node: Node, p: CreationParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = node.outputs[0]
    x = node.inputs[0]
    assert x is not None
    if node.op == "shape":
        return [np.array(x.shape, out.dtype.np)]
    if node.op == "fill":
        return [np.full(out.shape, np.asarray(inputs[1]).reshape(-1)[0], out.dtype.np)]
    return [np.zeros(out.shape, out.dtype.np)]


def emit(node: Node, p: CreationParams, em: Emitter) -> CCall:
    out = node.outputs[0]
    x = node.inputs[0]
    assert x is not None
    if node.op == "shape":  # a constant: copied from flash
        dims = em.const(np.array(x.shape, out.dtype.np), "shape")
        return CCall("mote_copy", "mote_copy_params", {"bytes": out.nbytes},
                     [f"(const int8_t *){dims}", f"(int8_t *){em.tensor(out)}"])
    fields: dict[str, int | str] = {"count": p.count, "element_bytes": p.element_bytes}
    if node.op == "zeros_like":
        return CCall("mote_zero_fill", "mote_fill_params", fields, [em.tensor(out)])
    value = node.inputs[1]
    assert value is not None
    return CCall("mote_fill", "mote_fill_params", fields, [em.tensor(value), em.tensor(out)])


for _name in DTYPES:
    register(OpDef(_name, shape, prepare, reference, emit, tflite=(_name.upper(),), check=check, dtypes=DTYPES[_name]))
