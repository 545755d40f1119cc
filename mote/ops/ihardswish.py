"""IHARDSWISH: the integer hard swish of the integer dialect (Deeploy's iHardswish / iHardswish_s8_s32), exact.

With x the stored int8 and v = x + input_offset (128 for unsigned inputs):
    out = x * (clamp(v + three, 0, six) * one_over_six)      (int32; x without the offset, as Deeploy's kernel)
A function of the one int8 input: the compiler tabulates it for all 256 values (mote_lut_s8_s32).

inputs [x int8]; output int32; attrs one_over_six, three, six.
"""

from __future__ import annotations

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.dialect_int import LutS32Params, int8_in, lut_s32, lut_s32_emit, lut_s32_reference, offset, same_shape
from mote.ops.dialect_int import wrap as _wrap
from mote.ops.registry import REQUIRED, OpDef, attr, register


def hardswish(stored: int, off: int, one_over_six: int, three: int, six: int) -> int:
    """Deeploy's iHardswish_s8_s32 on one stored value, with its int32 wrap-around."""
    t = int(_wrap(stored + off + three, 32))
    t = 0 if t < 0 else t
    t = six if t > six else t
    return int(_wrap(stored * int(_wrap(t * one_over_six, 32)), 32))


def check(node: Node) -> None:
    checks.input_count(node, 1)
    int8_in(node, DType.INT32)


def prepare(node: Node) -> LutS32Params:
    x = node.inputs[0]
    assert x is not None
    k = [int(_wrap(int(attr(node, name)), 32)) for name in ("one_over_six", "three", "six")]
    return lut_s32(node, lambda stored: hardswish(stored, offset(x), *k))


OP = register(OpDef("ihardswish", same_shape, prepare, lut_s32_reference, lut_s32_emit, check=check,
                    attrs={"one_over_six": REQUIRED, "three": REQUIRED, "six": REQUIRED}))
