"""SUB: int8 a - b with numpy broadcasting and a fused activation.

The same arithmetic as ADD (see add.py), multipliers included, with the scaled inputs subtracted.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops import arith_s16, binary_f32, binary_s32
from mote.ops.add import AddParams, add_multipliers, add_sub_call, add_sub_params, finish, overlap, scaled_inputs
from mote.ops.broadcast import output_shape
from mote.ops.checks import binary_int8
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register


def prepare(node: Node) -> AddParams:
    return add_sub_params(node, add_multipliers)


def reference(node: Node, p: AddParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = scaled_inputs(node, p, inputs)
    return [finish(p, a - b)]


def emit(node: Node, p: AddParams, em: Emitter) -> CCall:
    return add_sub_call(node, p, em, b_sign=-1)


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: arith_s16.ROW, DType.INT8: (binary_int8, prepare, reference, emit),
            DType.FLOAT32: (binary_f32.check, binary_f32.prepare, binary_f32.reference, binary_f32.emit),
            DType.INT32: (binary_s32.check, binary_s32.prepare, binary_s32.reference, binary_s32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("sub", output_shape, _prepare, _reference, _emit, tflite=("SUB",), overlap=overlap, check=_check,
                    attrs={"activation": "NONE"}, dtypes=tuple(BY_DTYPE)))
