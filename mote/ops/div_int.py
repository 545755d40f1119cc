"""DIV on int8, with numpy broadcasting and a fused activation, as TFLite Micro computes it: per element,
a = x1 - zp1 and b = x2 - zp2 (both negated when b < 0); 1 / b from TFLite's GetReciprocal (the divisor
normalized by its leading zeros, gemmlowp's 1 / (1 + x)); a shifted left by its redundant sign bits and
multiplied by it; then the quotient requantized by s1 / (s2 s_out) (the float32 scales widened to double)
with every shift taken once, plus the output zero point, clamped.

Where the interpreter's code shifts an int32 by 32 or more (a zero divisor, or the final shift when the
dividend is within a few steps of its zero point), its results are those of its machine code: 32-bit cores
take the shift count modulo 32. mote does the same, on purpose, so that it matches there too."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote import fixedpoint as fp
from mote.ir import Node
from mote.ops import checks
from mote.ops.broadcast import Broadcast, broadcast_inputs, plan_broadcast
from mote.ops.common import activation_range
from mote.ops.registry import CCall, Emitter, attr
from mote.quant import quantize_multiplier

F32 = np.float32


@dataclass(frozen=True)
class DivS8Params:
    bcast: Broadcast
    a_offset: int
    b_offset: int
    output_offset: int
    multiplier: int
    shift: int
    act_min: int
    act_max: int


def check(node: Node) -> None:
    checks.binary_int8(node)


def prepare(node: Node) -> DivS8Params:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert a is not None and b is not None
    # in double: the interpreter's multiplier (a float32 quotient, as some TFLite Micro sources write it,
    # differs in the last bits and then by one on near-ties)
    real = float(F32(a.scale)) / (float(F32(b.scale)) * float(F32(out.scale)))
    return DivS8Params(plan_broadcast(node), -a.zero_point, -b.zero_point, out.zero_point, *quantize_multiplier(real),
                       *activation_range(attr(node, "activation"), out))


def _redundant_sign_bits(x: np.ndarray) -> np.ndarray:
    """gcc's __builtin_clrsb on int32 (31 for 0), which TFLite's CountLeadingSignBits calls."""
    x = np.asarray(x, np.int64)
    return fp.count_leading_zeros(np.where(x < 0, ~x, x)) - 1


def _rdbypot_32bit(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT on int32 as 32-bit cores run it for any exponent in 0..62: the mask
    computed in 64 bits and truncated, the shift count taken modulo 32."""
    x, exponent = np.asarray(x, np.int64), np.minimum(np.asarray(exponent, np.int64), 62)
    mask = fp.wrap32((np.int64(1) << exponent) - 1)
    threshold = (mask >> 1) + (x < 0)
    return (x >> (exponent & 31)) + (fp.wrap32(x & mask) > threshold)


def reference(node: Node, p: DivS8Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, y = broadcast_inputs(node, inputs)
    a, b = np.asarray(x, np.int64) + p.a_offset, np.asarray(y, np.int64) + p.b_offset
    a, b = np.where(b < 0, -a, a), np.abs(b)
    inverse, recip_shift = fp.reciprocal(b, 31)
    headroom = _redundant_sign_bits(a)
    quotient = fp.mul(a << headroom, inverse)
    value = _rdbypot_32bit(fp.mul(quotient, p.multiplier), -(p.shift - recip_shift - headroom))
    out = np.clip(value + p.output_offset, p.act_min, p.act_max)
    return [out.astype(np.int8).reshape(node.outputs[0].shape)]


def emit(node: Node, p: DivS8Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {**p.bcast.fields(em), **{k: v for k, v in vars(p).items() if k != "bcast"}}
    return CCall("mote_div_s8", "mote_div_s8_params", fields, [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)
