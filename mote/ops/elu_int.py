"""ELU on int8, as TFLite Micro computes it: a 256-entry table built at compile time in float32, each input
value dequantized, mapped by x < 0 ? exp(x) - 1 : x (exp rounded once to float32), scaled by 1 / s_out,
rounded half away from zero, offset by the output zero point and clamped; the C kernel looks the table up
(mote_lut_s8)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter

F32 = np.float32


@dataclass(frozen=True, eq=False)
class LutParams:
    size: int
    table: np.ndarray  # int8 [256], indexed by the input byte (uint8)


def _elu(x: np.float32) -> np.float32:
    return F32(F32(math.exp(float(x))) - F32(1.0)) if x < F32(0.0) else x


def check(node: Node) -> None:
    checks.unary_int8(node)


def prepare(node: Node) -> LutParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    inverse = F32(F32(1.0) / F32(out.scale))
    table = np.zeros(256, np.int8)
    for value in range(-128, 128):
        dequantized = F32(F32(x.scale) * F32(value - x.zero_point))
        scaled = F32(_elu(dequantized) * inverse)
        rounded = F32(math.copysign(math.floor(abs(float(scaled)) + 0.5), float(scaled)))
        quantized = int(F32(rounded + F32(out.zero_point)))
        table[value & 0xFF] = min(max(quantized, -128), 127)
    return LutParams(x.size, table)


def lut_reference(node: Node, p: LutParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """An int8 function given by its table (ELU, HARD_SWISH)."""
    return [p.table[np.asarray(inputs[0], np.int8).view(np.uint8)]]


def lut_emit(node: Node, p: LutParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_lut_s8", "mote_lut_s8_params", {"size": p.size, "table": em.const(p.table, f"{node.op}_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, lut_reference, lut_emit)
