"""Two-input element-wise ops on raw values, with numpy broadcasting (mote.ops.broadcast):

  maximum, minimum        float32, int8, int16, int32, int64 (quantized inputs compare their raw
                          values: TFLite Micro neither rescales nor checks them)
  equal, not_equal        float32, int32, int64, bool; int8 when both inputs share their quantization
  greater(_equal), less(_equal)   float32, int32, int64; int8 likewise       -> bool
  logical_and, logical_or bool
  div                     float32: clamp(a / b) with the fused activation
  floor_div               float32: floor(a / b)
  floor_mod               float32: fmod(a, b) moved into b's sign (mote's exact fmod, no libm)
  squared_difference      float32: (a - b) * (a - b)

Each is one IEEE operation or comparison per output, as TFLite Micro's kernels compute them, so results
are identical. The C kernels (mote_compare, mote_min_max, mote_logical, mote_div_f32, ...) walk the output
as mote_broadcast.h plans it; the element type is a field of their parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import binary_s32, checks, div_int, squared_difference_int
from mote.ops.broadcast import Broadcast, output_shape, plan_broadcast
from mote.ops.float_common import c_float, clamp, float_range
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register

F32 = np.float32
ORDERED = (DType.FLOAT32, DType.INT8, DType.INT32, DType.INT64)
# The element types of the kernels' `type` field: MOTE_ELEMENT_* in mote_element.h.
ELEMENT = {DType.FLOAT32: "MOTE_ELEMENT_F32", DType.INT8: "MOTE_ELEMENT_S8", DType.INT16: "MOTE_ELEMENT_S16",
           DType.INT32: "MOTE_ELEMENT_S32", DType.INT64: "MOTE_ELEMENT_S64", DType.BOOL: "MOTE_ELEMENT_BOOL"}


@dataclass(frozen=True)
class Binary:
    builtin: str
    dtypes: tuple[DType, ...]
    numpy: Callable[[np.ndarray, np.ndarray], np.ndarray]
    kernel: str  # the C function
    code: str = ""  # the operation's code in the kernel's parameters, when it runs several
    boolean: bool = False  # the output is bool


def _floor_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.floor((a / b).astype(F32)).astype(F32)


def _floor_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TFLite's FloorMod: fmod (exact), moved into b's sign by adding b where the signs differ."""
    m = np.fmod(a, b).astype(F32)
    return np.where((m != 0) & ((b < 0) != (m < 0)), (m + b).astype(F32), m).astype(F32)


BINARY: dict[str, Binary] = {
    "maximum": Binary("MAXIMUM", (*ORDERED, DType.INT16), lambda a, b: np.where(a > b, a, b), "mote_min_max", "1"),
    "minimum": Binary("MINIMUM", (*ORDERED, DType.INT16), lambda a, b: np.where(a < b, a, b), "mote_min_max", "0"),
    "equal": Binary("EQUAL", (*ORDERED, DType.BOOL), np.equal, "mote_compare", "MOTE_EQUAL", True),
    "not_equal": Binary("NOT_EQUAL", (*ORDERED, DType.BOOL), np.not_equal, "mote_compare", "MOTE_NOT_EQUAL", True),
    "greater": Binary("GREATER", ORDERED, np.greater, "mote_compare", "MOTE_GREATER", True),
    "greater_equal": Binary("GREATER_EQUAL", ORDERED, np.greater_equal, "mote_compare", "MOTE_GREATER_EQUAL", True),
    "less": Binary("LESS", ORDERED, np.less, "mote_compare", "MOTE_LESS", True),
    "less_equal": Binary("LESS_EQUAL", ORDERED, np.less_equal, "mote_compare", "MOTE_LESS_EQUAL", True),
    "logical_and": Binary("LOGICAL_AND", (DType.BOOL,), np.logical_and, "mote_logical", "1", True),
    "logical_or": Binary("LOGICAL_OR", (DType.BOOL,), np.logical_or, "mote_logical", "0", True),
    "div": Binary("DIV", (DType.FLOAT32,), lambda a, b: (a / b).astype(F32), "mote_div_f32"),
    "floor_div": Binary("FLOOR_DIV", (DType.FLOAT32,), _floor_div, "mote_floor_div_f32"),
    "floor_mod": Binary("FLOOR_MOD", (DType.FLOAT32,), _floor_mod, "mote_floor_mod_f32"),
    "squared_difference": Binary("SQUARED_DIFFERENCE", (DType.FLOAT32,),
                                 lambda a, b: ((a - b).astype(F32) * (a - b).astype(F32)).astype(F32),
                                 "mote_squared_difference_f32"),
}


@dataclass(frozen=True)
class BinaryParams:
    bcast: Broadcast
    act_min: float = 0.0  # div's fused activation
    act_max: float = 0.0


def check(node: Node) -> None:
    spec = BINARY[node.op]
    checks.input_count(node, 2)
    a, b = checks.present(node, 0, "first input"), checks.present(node, 1, "second input")
    checks.dtype(node, a, "first input", *spec.dtypes)
    checks.dtype(node, b, "second input", a.dtype)
    checks.dtype(node, node.outputs[0], "output", DType.BOOL if spec.boolean else a.dtype)
    if spec.boolean and a.dtype is DType.INT8 and a.quant != b.quant:
        raise checks.fail(node, "int8 inputs with different quantizations are compared after rescaling, which mote "
                                "does not implement; give both inputs the same scale and zero point")
    if node.op == "div":
        checks.activation(node)
    output_shape(node)  # the shapes broadcast


def prepare(node: Node) -> BinaryParams:
    if node.op == "div":
        return BinaryParams(plan_broadcast(node), *float_range(node))
    return BinaryParams(plan_broadcast(node))


def reference(node: Node, p: BinaryParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = node.outputs[0]
    a = np.broadcast_to(np.asarray(inputs[0]), out.shape)
    b = np.broadcast_to(np.asarray(inputs[1]), out.shape)
    with np.errstate(all="ignore"):  # division by zero and NaN behave as in C
        value = BINARY[node.op].numpy(a, b)
    if node.op == "div":
        value = clamp(value, p.act_min, p.act_max)
    return [np.asarray(value).astype(out.dtype.np)]


def emit(node: Node, p: BinaryParams, em: Emitter) -> CCall:
    spec = BINARY[node.op]
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = dict(p.bcast.fields(em))
    if spec.code:
        fields.update(type=ELEMENT[a.dtype], operation=spec.code)
    params = "mote_element_binary_params" if spec.code else "mote_binary_f32_params"
    if node.op == "div":
        fields.update(act_min=c_float(p.act_min), act_max=c_float(p.act_max))
    return CCall(spec.kernel, params, fields, [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


for _name, _spec in BINARY.items():
    if _name in ("squared_difference", "div"):
        continue
    register(OpDef(_name, output_shape, prepare, reference, emit, tflite=(_spec.builtin,), check=check,
                   attrs={"activation": "NONE"} if _name == "div" else {}, dtypes=_spec.dtypes))
# SQUARED_DIFFERENCE also runs on int8, int16 and int32 (mote.ops.squared_difference_int).
_SQUARED = {DType.FLOAT32: (check, prepare, reference, emit),
            **dict.fromkeys((DType.INT8, DType.INT16, DType.INT32), squared_difference_int.ROW)}
_check_sq, _prepare_sq, _reference_sq, _emit_sq = dtype_columns(_SQUARED)
register(OpDef("squared_difference", output_shape, _prepare_sq, _reference_sq, _emit_sq, tflite=("SQUARED_DIFFERENCE",),
               check=_check_sq, dtypes=tuple(_SQUARED)))
# DIV also runs on int8 (mote.ops.div_int) and int32 (mote.ops.binary_s32).
_DIV = {DType.FLOAT32: (check, prepare, reference, emit), DType.INT8: div_int.ROW,
        DType.INT32: (binary_s32.check, binary_s32.prepare, binary_s32.reference, binary_s32.emit)}
_check_div, _prepare_div, _reference_div, _emit_div = dtype_columns(_DIV)
register(OpDef("div", output_shape, _prepare_div, _reference_div, _emit_div, tflite=("DIV",), check=_check_div,
               attrs={"activation": "NONE"}, dtypes=tuple(_DIV)))
