"""CONCATENATION: int8 tensors joined along one axis; a pure copy.

TFLite Micro's int8 concatenation does no requantization: its prepare requires every input to have
exactly the output's scale and zero point and the fused activation to be NONE, and mote requires the
same. The copy: for each index over the dimensions before the axis, every input in turn contributes
its contiguous slab of shape[axis] * (product of the dimensions after the axis) bytes.
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks, concatenation_f32
from mote.ops.add import quantized_int8
from mote.ops.concat_plan import ConcatParams, inputs_of, shape
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register


def prepare(node: Node) -> ConcatParams:
    xs, out = [quantized_int8(node, t) for t in inputs_of(node)], quantized_int8(node, node.outputs[0])
    if attr(node, "activation") != "NONE":
        raise UnsupportedError(f"node {node.name!r} (concatenation): fused activation "
                               f"{attr(node, 'activation')} is not supported by TFLite Micro")
    for x in xs:
        if x.scale != out.scale or x.zero_point != out.zero_point:
            raise UnsupportedError(
                f"node {node.name!r} (concatenation): input {x.name!r} is quantized (scale {x.scale:g}, zero point "
                f"{x.zero_point}) unlike the output (scale {out.scale:g}, zero point {out.zero_point}); TFLite "
                "Micro's int8 concatenation does not requantize, so every input must match the output")
    out_shape = shape(node)[0]
    axis = attr(node, "axis")
    inner = int(np.prod(out_shape[axis + 1:], dtype=np.int64))
    return ConcatParams(axis, int(np.prod(out_shape[:axis], dtype=np.int64)), tuple(x.shape[axis] * inner for x in xs))


def reference(node: Node, p: ConcatParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.concatenate([np.asarray(x, dtype=np.int8) for x in inputs], axis=p.axis)]


def emit(node: Node, p: ConcatParams, em: Emitter) -> CCall:
    pointers = ", ".join(em.tensor(x) for x in inputs_of(node))
    fields: dict[str, int | str] = {"num_inputs": len(p.chunks), "outer": p.outer,
                                    "chunks": em.const(np.array(p.chunks, dtype=np.int32), "concat_chunks")}
    # The input pointers are arena addresses, not flash constants: a C99 compound literal at the call.
    return CCall("mote_concatenation_s8", "mote_concatenation_params", fields,
                 [f"(const int8_t *const[]){{{pointers}}}", em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    if not node.inputs or len(node.outputs) != 1:
        raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; the op takes at "
                                "least one input and produces one output")
    for k, t in enumerate(node.inputs):
        checks.int8_activation(node, t, f"input {k}")
    checks.int8_activation(node, node.outputs[0], "output")
    checks.activation(node)
    if not isinstance(attr(node, "axis"), int):
        raise checks.fail(node, f"axis {attr(node, 'axis')!r} is not a whole number")


# Per activation dtype: (check, prepare, reference, emit).
_BYTES = (concatenation_f32.check_concatenation, concatenation_f32.prepare_concatenation,
          concatenation_f32.reference_concatenation, concatenation_f32.emit_concatenation)
BY_DTYPE = {DType.INT8: (check, prepare, reference, emit), **dict.fromkeys(concatenation_f32.BYTE_DTYPES, _BYTES)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("concatenation", shape, _prepare, _reference, _emit, tflite=("CONCATENATION",), check=_check,
                    attrs={"axis": 0, "activation": "NONE"}, dtypes=tuple(BY_DTYPE)))
