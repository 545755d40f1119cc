"""DEQUANTIZE: int8, int16 or uint8 -> float32, out = float(double(scale) * (x - zero_point)) as TFLite
Micro computes it.

The double product is exact (a 24-bit scale times an integer of at most 17 bits), so rounding it to
float32 equals the correctly rounded float32 product: the C kernels multiply in float and need no
double support. On scalar cores an int8 input of at least TABLE_FROM values takes
mote_dequantize_table_s8_f32: the 256 results as a table (1 KiB of flash), one load an element where a core
without an FPU would emulate the conversion and the product (about 110 rv32 instructions an element).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, register


@dataclass(frozen=True)
class DequantizeParams:
    size: int
    scale: float  # the input scale, a float32 value
    zero_point: int


TABLE_FROM = 256  # the fewest int8 values that take the table: its 256 floats in flash pay off from there
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


def table(p: DequantizeParams) -> np.ndarray:
    """float32 [256]: the reference's result for each int8 value, indexed by its byte."""
    values = np.arange(256, dtype=np.uint8).view(np.int8)
    return (p.scale * (values.astype(np.float64) - p.zero_point)).astype(np.float32)


def _accepts_table(node: Node, p: DequantizeParams) -> str | None:
    return None if p.size >= TABLE_FROM else f"{p.size} values, under {TABLE_FROM} (its table's 256)"


def _emit_table(node: Node, p: DequantizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_dequantize_table_s8_f32", "mote_dequantize_table_params",
                 {"size": p.size, "table": em.const(table(p), "dequantize_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *KERNELS)
    checks.quantized(node, x, "input")
    checks.dtype(node, node.outputs[0], "output", DType.FLOAT32)


TABLE_KERNELS = (
    Kernel("mote_dequantize_table_s8_f32", frozenset({Core.SCALAR}), _emit_table, accepts=_accepts_table,
           dtypes=frozenset({DType.INT8})),
    *(Kernel(func, frozenset(Core), emit, dtypes=frozenset({dtype})) for dtype, func in KERNELS.items()),
)
OP = register(OpDef("dequantize", shape, prepare, reference, emit, tflite=("DEQUANTIZE",), check=check,
                    kernels=TABLE_KERNELS, dtypes=tuple(KERNELS)))
