"""IGELU: the integer GELU of the integer dialect (I-BERT's; Deeploy's iGELU / GELU_s8_s32), exact.

With v = x + input_offset (128 for unsigned inputs), s = sign(v), b an int8 and one an int16 (C's casts):
    d = min(|v|, -b) + b,   L = s * (one - d^2),   out = v * ((one + L) >> 1)     (int32)
A function of the one int8 input: the compiler tabulates it for all 256 values (mote_lut_s8_s32).

inputs [x int8]; output int32; attrs b, one.
"""

from __future__ import annotations

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.dialect_int import LutS32Params, int8_in, lut_s32, lut_s32_emit, lut_s32_reference, offset, same_shape
from mote.ops.dialect_int import wrap as _wrap
from mote.ops.registry import REQUIRED, OpDef, attr, register


def gelu(v: int, b: int, one: int) -> int:
    """Deeploy's GELU_s8_s32 on one value v (already offset), b and one already cast."""
    sign = (v > 0) - (v < 0)
    q = -b if sign * v > -b else sign * v
    d = q + b
    curve = sign * (-(d * d) + one)
    return v * ((one + curve) >> 1)


def check(node: Node) -> None:
    checks.input_count(node, 1)
    int8_in(node, DType.INT32)


def prepare(node: Node) -> LutS32Params:
    x = node.inputs[0]
    assert x is not None
    b, one, off = int(_wrap(int(attr(node, "b")), 8)), int(_wrap(int(attr(node, "one")), 16)), offset(x)
    return lut_s32(node, lambda stored: gelu(stored + off, b, one))


OP = register(OpDef("igelu", same_shape, prepare, lut_s32_reference, lut_s32_emit, check=check,
                    attrs={"b": REQUIRED, "one": REQUIRED}))
