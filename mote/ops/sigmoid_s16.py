"""LOGISTIC and TANH on int16 (zero points 0, the output scale 2^-15), as TFLite Micro computes them: the
input rescaled to the interpolation table's step (a multiplier of at most 15 bits and a rounding shift,
chosen at compile time from the input scale as the interpreter chooses them), then a linear
interpolation between two entries of the sigmoid table (mote.ops.sigmoid_table) on the magnitude, the sign
folded back in (tanh(x) = 2 sigmoid(2x) - 1 reads the same table at twice the resolution).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter
from mote.ops.sigmoid_table import SIGMOID_TABLE

TABLE = np.array(SIGMOID_TABLE, dtype=np.uint16)
F32 = np.float32


@dataclass(frozen=True)
class SigmoidS16Params:
    size: int
    multiplier: int  # at most 32767
    shift: int  # right shift, with rounding when > 0


def log2_rounded(scale: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: the rounded log2 and whether the scale is a power of two."""
    value = F32(math.log(F32(scale))) * (F32(1.0) / F32(math.log(F32(2.0))))
    rounded = math.floor(abs(float(value)) + 0.5) * (1 if value >= 0 else -1)
    return int(rounded), abs(float(value) - rounded) < 1e-3


def check(node: Node) -> None:
    checks.unary_int16(node)
    out = node.outputs[0]
    exponent, power_of_two = log2_rounded(out.scale)
    if not power_of_two or exponent != -15:
        raise checks.fail(node, f"the int16 output scale {out.scale:g} is not 2^-15, which TFLite Micro requires")


def prepare(node: Node) -> SigmoidS16Params:
    x = node.inputs[0]
    assert x is not None
    exponent, power_of_two = log2_rounded(x.scale)
    shift = 12 + exponent
    if power_of_two and (shift == 0 or (node.op == "tanh" and shift == 1)):
        return SigmoidS16Params(x.size, 3 << shift, 0)  # the interpreter's power-of-two case
    multiplier, shift = float(F32(x.scale)) * 4096.0 * 3.0, 0
    while multiplier <= 32767.0 / 2.0 and shift <= 30:
        shift += 1
        multiplier *= 2.0
    if int(multiplier) > 32767:
        raise checks.fail(node, f"input scale {x.scale:g} is too large for TFLite Micro's int16 {node.op.upper()}")
    return SigmoidS16Params(x.size, int(multiplier), shift)


def lookup(x: np.ndarray, multiplier: int, shift: int, tanh: bool) -> np.ndarray:
    """TFLite's int16 Logistic (or Tanh) of x rescaled by (multiplier, shift), as int16."""
    rounding = (1 << (shift - 1)) if shift > 0 else 0
    v = (np.asarray(x, np.int64) * multiplier + rounding) >> shift
    magnitude = np.abs(v)
    bits = 8 if tanh else 9  # the fraction between entries
    index = magnitude >> bits
    inside = index < 255
    i = np.where(inside, index, 0)
    low, high = TABLE[i].astype(np.int64), TABLE[np.minimum(i + 1, 255)].astype(np.int64)
    fraction = magnitude & ((1 << bits) - 1)
    if not tanh:
        result = np.where(inside, (low << 9) + fraction * (high - low), 0x7FFF << 10)
        result = np.where(v >= 0, result + (1 << 9), (1 << 25) - result + (1 << 9) - 1) >> 10
    else:
        result = np.where(inside, (low << 8) + fraction * (high - low), 0xFFFF << 8)
        result = np.where(v >= 0, result - (1 << 23) + (1 << 7), -result + (1 << 23) + (1 << 7) - 1) >> 8
    return result.astype(np.int16)


def reference(node: Node, p: SigmoidS16Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [lookup(inputs[0], p.multiplier, p.shift, node.op == "tanh")]


def emit(node: Node, p: SigmoidS16Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"size": p.size, "multiplier": p.multiplier, "shift": p.shift,
                                    "table": em.const(TABLE, "sigmoid_table")}
    return CCall(f"mote_{node.op}_s16", "mote_sigmoid_s16_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)  # the ops' BY_DTYPE rows
