"""CAST between float32, int8, int16, int32 and bool (every pair TFLite Micro runs), and LOGICAL_NOT.

CAST follows C's conversions, as TFLite Micro's static_cast does on the machines it is tested on (x86-64
and Arm): to bool, x != 0; from bool, 0 or 1; between integers, two's-complement wrapping; integer to float
rounds to nearest. Float to integer is what the tflite-micro interpreter computes (C leaves it undefined out of
range): toward zero, saturated at the target's limits, a NaN giving 0. Quantization is ignored, as TFLite Micro
ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.math_binary import ELEMENT
from mote.ops.registry import CCall, Emitter, OpDef, register

CAST_DTYPES = (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32, DType.BOOL)


@dataclass(frozen=True)
class CastParams:
    size: int


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    if node.op == "logical_not":
        checks.dtype(node, x, "input", DType.BOOL)
        checks.dtype(node, node.outputs[0], "output", DType.BOOL)
        return
    checks.dtype(node, x, "input", *CAST_DTYPES)
    checks.dtype(node, node.outputs[0], "output", *CAST_DTYPES)


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> CastParams:
    x = node.inputs[0]
    assert x is not None
    return CastParams(x.size)


def convert(x: np.ndarray, to: DType) -> np.ndarray:
    """`x` as `to`, with mote_cast's rules."""
    if to is DType.BOOL:
        return x != 0
    if to is DType.FLOAT32 or x.dtype != np.float32:
        return x.astype(to.np)  # integers wrap, as C's conversion does
    info = np.iinfo(to.np)
    saturated = np.clip(np.nan_to_num(x, nan=0.0).astype(np.float64), info.min, info.max)
    return np.trunc(saturated).astype(to.np)


def reference(node: Node, p: CastParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    if node.op == "logical_not":
        return [np.logical_not(x)]
    with np.errstate(invalid="ignore"):
        return [convert(x, node.outputs[0].dtype)]


def emit(node: Node, p: CastParams, em: Emitter) -> CCall:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"size": p.size, "from": ELEMENT[x.dtype], "to": ELEMENT[out.dtype]}
    return CCall(f"mote_{node.op}", "mote_cast_params", fields, [em.tensor(x), em.tensor(out)])


register(OpDef("cast", shape, prepare, reference, emit, tflite=("CAST",), check=check, dtypes=CAST_DTYPES))
register(OpDef("logical_not", shape, prepare, reference, emit, tflite=("LOGICAL_NOT",), check=check,
               dtypes=(DType.BOOL,)))
