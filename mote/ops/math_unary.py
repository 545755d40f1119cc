"""The one-input float32 math of TFLite Micro, element by element: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT,
SQUARE, EXP, LOG, SIN, COS, ELU, HARD_SWISH and LEAKY_RELU (LEAKY_RELU and ABS also run int8 and int16,
ELU, HARD_SWISH and RSQRT int8: leaky_relu_int, abs_int, elu_int, hard_swish_int, rsqrt_int).

Each is a row of `UNARY`: its TFLite builtin, its numpy semantics and the C expression of one element
(mote/runtime/mote_<op>_f32.c applies it in a loop). The expressions keep TFLite Micro's float operation
order; the transcendentals are mote's own (mote.ops.float_math, mirrored in C), within 1 ULP of the C
library TFLite Micro calls, and the reference and the C agree bit for bit. ROUND rounds half to even, as
TFLite's reference Round does (floor, then compare the difference with 0.5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import abs_int, elu_int, hard_swish_int, leaky_relu_int, rsqrt_int
from mote.ops import float_math as fm
from mote.ops.float_common import c_float, unary_float
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register

F32 = np.float32


def _floor(x: np.ndarray) -> np.ndarray:
    return np.floor(x).astype(F32)


def _round_half_even(x: np.ndarray) -> np.ndarray:
    f = np.floor(x).astype(F32)
    diff = (x - f).astype(F32)
    keep = (diff < F32(0.5)) | ((diff == F32(0.5)) & (np.fmod(f, F32(2)) == 0))
    return np.where(keep, f, (f + F32(1)).astype(F32)).astype(F32)


def _hard_swish(x: np.ndarray) -> np.ndarray:
    clamped = np.minimum(F32(6), np.maximum(F32(0), (x + F32(3)).astype(F32)))
    return ((x * clamped).astype(F32) / F32(6)).astype(F32)


@dataclass(frozen=True)
class Unary:
    builtin: str
    numpy: Callable[[np.ndarray], np.ndarray]


# op name -> its builtin and numpy semantics (the C expression lives in mote/runtime/mote_<op>_f32.c).
UNARY: dict[str, Unary] = {
    "abs": Unary("ABS", lambda x: np.abs(x)),
    "neg": Unary("NEG", lambda x: -x),
    "ceil": Unary("CEIL", lambda x: np.ceil(x)),
    "floor": Unary("FLOOR", _floor),
    "round": Unary("ROUND", _round_half_even),
    "sqrt": Unary("SQRT", lambda x: np.sqrt(x)),
    "rsqrt": Unary("RSQRT", lambda x: (F32(1) / np.sqrt(x)).astype(F32)),
    "square": Unary("SQUARE", lambda x: (x * x).astype(F32)),
    "exp": Unary("EXP", fm.expf),
    "log": Unary("LOG", fm.logf),
    "sin": Unary("SIN", fm.sinf),
    "cos": Unary("COS", fm.cosf),
    "elu": Unary("ELU", lambda x: np.where(x < F32(0), fm.expm1f(x), x)),
    "hard_swish": Unary("HARD_SWISH", _hard_swish),
}


@dataclass(frozen=True)
class UnaryParams:
    size: int
    alpha: float = 0.0  # LEAKY_RELU only


def prepare(node: Node) -> UnaryParams:
    x = node.inputs[0]
    assert x is not None
    return UnaryParams(x.size)


def prepare_leaky_relu(node: Node) -> UnaryParams:
    x = node.inputs[0]
    assert x is not None
    return UnaryParams(x.size, float(F32(attr(node, "alpha"))))


def reference(node: Node, p: UnaryParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], F32)
    with np.errstate(all="ignore"):  # NaN and infinities pass as in C
        if node.op == "leaky_relu":
            return [np.where(x > F32(0), x, (x * F32(p.alpha)).astype(F32)).astype(F32)]
        return [np.asarray(UNARY[node.op].numpy(x), F32)]


def emit(node: Node, p: UnaryParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    if node.op == "leaky_relu":
        return CCall("mote_leaky_relu_f32", "mote_leaky_relu_f32_params", {"size": p.size, "alpha": c_float(p.alpha)},
                     [em.tensor(x), em.tensor(node.outputs[0])])
    return CCall(f"mote_{node.op}_f32", "mote_elementwise_f32_params", {"size": p.size},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


for _name, _unary in UNARY.items():
    if _name in ("abs", "elu", "hard_swish", "rsqrt"):
        continue
    register(OpDef(_name, _shape, prepare, reference, emit, tflite=(_unary.builtin,), check=unary_float,
                   dtypes=(DType.FLOAT32,)))
# LEAKY_RELU also runs quantized (mote.ops.leaky_relu_int): (check, prepare, reference, emit) per dtype.
_LEAKY = {DType.FLOAT32: (unary_float, prepare_leaky_relu, reference, emit),
          **dict.fromkeys((DType.INT8, DType.INT16), (leaky_relu_int.check, leaky_relu_int.prepare,
                                                      leaky_relu_int.reference, leaky_relu_int.emit))}
_check, _prepare, _reference, _emit = dtype_columns(_LEAKY)
# ABS also runs on int8 and int16 (mote.ops.abs_int).
_ABS = {DType.FLOAT32: (unary_float, prepare, reference, emit),
        **dict.fromkeys((DType.INT8, DType.INT16), (abs_int.check, abs_int.prepare, abs_int.reference, abs_int.emit))}
_check_abs, _prepare_abs, _reference_abs, _emit_abs = dtype_columns(_ABS)
register(OpDef("abs", _shape, _prepare_abs, _reference_abs, _emit_abs, tflite=("ABS",), check=_check_abs,
               dtypes=tuple(_ABS)))
register(OpDef("leaky_relu", _shape, _prepare, _reference, _emit, tflite=("LEAKY_RELU",), check=_check,
               attrs={"alpha": 0.2}, dtypes=tuple(_LEAKY)))
# ELU also runs on int8 (mote.ops.elu_int).
_ELU = {DType.FLOAT32: (unary_float, prepare, reference, emit), DType.INT8: elu_int.ROW}
_check_elu, _prepare_elu, _reference_elu, _emit_elu = dtype_columns(_ELU)
register(OpDef("elu", _shape, _prepare_elu, _reference_elu, _emit_elu, tflite=("ELU",), check=_check_elu,
               dtypes=tuple(_ELU)))
# RSQRT also runs on int8 (mote.ops.rsqrt_int).
_RSQRT = {DType.FLOAT32: (unary_float, prepare, reference, emit), DType.INT8: rsqrt_int.ROW}
_check_rs, _prepare_rs, _reference_rs, _emit_rs = dtype_columns(_RSQRT)
register(OpDef("rsqrt", _shape, _prepare_rs, _reference_rs, _emit_rs, tflite=("RSQRT",), check=_check_rs,
               dtypes=tuple(_RSQRT)))
# HARD_SWISH also runs on int8 (mote.ops.hard_swish_int).
_HARD_SWISH = {DType.FLOAT32: (unary_float, prepare, reference, emit), DType.INT8: hard_swish_int.ROW}
_check_hs, _prepare_hs, _reference_hs, _emit_hs = dtype_columns(_HARD_SWISH)
register(OpDef("hard_swish", _shape, _prepare_hs, _reference_hs, _emit_hs, tflite=("HARD_SWISH",), check=_check_hs,
               dtypes=tuple(_HARD_SWISH)))
