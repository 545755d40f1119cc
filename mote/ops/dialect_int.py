"""C integer arithmetic in numpy for the integer dialect's nonlinear ops (Deeploy's kernels): wrapping casts,
C's truncating division, floor square roots, rows over trailing axes, and the checks they share."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import CCall, Emitter

INT32_MAX = 2**31 - 1


def wrap(v: np.ndarray | int, bits: int) -> np.ndarray:
    """The value a C cast to a signed `bits`-bit integer gives (two's complement wrap-around)."""
    half = 1 << (bits - 1)
    return (np.asarray(v, np.int64) + half) % (2 * half) - half


def c_div(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """C's integer division (toward zero), elementwise on int64."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def isqrt(v: np.ndarray) -> np.ndarray:
    """floor(sqrt(v)) for v > 0, else 0, exactly (the integer square root Deeploy's norms take)."""
    flat = np.asarray(v, np.int64).reshape(-1)
    return np.array([math.isqrt(int(a)) if a > 0 else 0 for a in flat], np.int64).reshape(np.shape(v))


def log2_floor(d: int | float) -> int:
    """int(math.log2(D)) as Deeploy's parsers take the shift of a norm's divisor D."""
    return int(math.log2(d))


def offset(t: Tensor) -> int:
    """What the kernel adds to a stored int8 value to get the integer: minus the zero point (128 for an
    unsigned 8-bit activation stored with zero point -128)."""
    return -t.zero_point if t.quant is not None else 0


def int8_in(node: Node, out: DType = DType.INT8) -> Tensor:
    """One int8 input (and any constants after it), one output of dtype `out`; the input returned."""
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.INT8)
    checks.dtype(node, node.outputs[0], "output", out)
    return x


def rows(node: Node, x: Tensor, length: int) -> int:
    """The number of rows of `length` elements in x (a norm's or softmax's trailing axes)."""
    if length <= 0 or x.size % length:
        raise checks.fail(node, f"rows of {length} elements do not tile the input {list(x.shape)}")
    return x.size // length


def same_shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


@dataclass(frozen=True, eq=False)
class LutS32Params:
    size: int
    table: np.ndarray  # int32 [256], indexed by the input byte (uint8)


def lut_s32(node: Node, function: Callable[[int], int]) -> LutS32Params:
    """The table of an elementwise int8 -> int32 function of the stored byte, each value wrapped to int32."""
    x = node.inputs[0]
    assert x is not None
    table = np.zeros(256, np.int32)
    for stored in range(-128, 128):
        table[stored & 0xFF] = int(wrap(function(stored), 32))
    return LutS32Params(x.size, table)


def lut_s32_reference(node: Node, p: LutS32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [p.table[np.asarray(inputs[0], np.int8).view(np.uint8)]]


def lut_s32_emit(node: Node, p: LutS32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_lut_s8_s32", "mote_lut_s8_s32_params",
                 {"size": p.size, "table": em.const(p.table, f"{node.op}_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])
