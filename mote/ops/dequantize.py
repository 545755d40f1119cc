"""DEQUANTIZE: int8, int16 or uint8 -> float32, out = float(double(scale) * (x - zero_point)) as TFLite
Micro computes it.

The double product is exact (a 24-bit scale times an integer of at most 17 bits), so rounding it to
float32 equals the correctly rounded float32 product: the C kernels multiply in float and need no
double support.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register


@dataclass(frozen=True)
class DequantizeParams:
    size: int
    scale: float  # the input scale, a float32 value
    zero_point: int


KERNELS = {DType.INT8: "mote_dequantize_s8_f32", DType.INT16: "mote_dequantize_s16_f32",
           DType.UINT8: "mote_dequantize_u8_f32"}


def prepare(node: Node) -> DequantizeParams:
    x = node.inputs[0]
    assert x is not None
    return DequantizeParams(x.size, float(np.float32(x.scale)), x.zero_point)


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def reference(node: Node, p: DequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [(p.scale * (np.asarray(inputs[0], dtype=np.float64) - p.zero_point)).astype(np.float32)]


def emit(node: Node, p: DequantizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"size": p.size, "scale": f"{p.scale.hex()}f", "zero_point": p.zero_point}
    return CCall(KERNELS[x.dtype], "mote_dequantize_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *KERNELS)
    checks.quantized(node, x, "input")
    checks.dtype(node, node.outputs[0], "output", DType.FLOAT32)


OP = register(OpDef("dequantize", shape, prepare, reference, emit, tflite=("DEQUANTIZE",), check=check,
                    dtypes=tuple(KERNELS)))
