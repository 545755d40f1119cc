"""ISOFTMAX: the integer softmax of the integer dialect (Deeploy's iSoftmax / Softmax_s8_s8), exact.

Per row of the last axis, with d = max - x (0..255) and x~ = -d:
    z = clip(int8(-(x~ / log2)), 0, 31)       (C division, truncating; the int8 cast wraps)
    p = x~ + z * log2
    y = uint32(uint64(coeffA * (p + coeffB)^2 + coeffC) >> z)
    out = int8(uint32(y * (n_levels - 1)) / sum(y) - n_levels / 2)   (uint32 arithmetic, wrapping)
y depends on d alone, so the compiler tabulates it (256 uint32 values) and the C kernel looks it up.
The output is unsigned (Deeploy's softmax type), stored with zero point -n_levels / 2.

inputs [x int8]; attrs coeff_a, coeff_b, coeff_c, log2, n_levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, int8_in, rows, same_shape, wrap
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class ISoftmaxParams:
    rows: int
    length: int
    levels_minus_one: int  # n_levels - 1, uint32
    output_offset: int  # -(n_levels / 2), added in uint32 and wrapped to int8
    table: np.ndarray  # uint32 [256]: y for d = max - x


def y_table(coeff_a: int, coeff_b: int, coeff_c: int, log2: int) -> list[int]:
    """y(d) for d = 0..255, with every cast of the C formula (None where coeffA * (p + coeffB)^2 leaves int32)."""
    table = []
    for d in range(256):
        xt = -d
        quotient = abs(xt) // abs(log2)  # C's xt / log2 truncates toward zero
        quotient = quotient if (xt < 0) == (log2 < 0) else -quotient
        z = min(max(int(wrap(-quotient, 8)), 0), 31)
        p = xt + z * log2
        square = int(wrap((p + coeff_b) * (p + coeff_b), 32))
        product = coeff_a * square
        if not -INT32_MAX - 1 <= product <= INT32_MAX:
            raise OverflowError(f"coeffA * (p + coeffB)^2 = {product} leaves int32 at d = {d}")
        table.append(((product + coeff_c) % 2**64 >> z) % 2**32)
    return table


def check(node: Node) -> None:
    checks.input_count(node, 1)
    int8_in(node)
    if int(attr(node, "log2")) == 0:
        raise checks.fail(node, "log2 is 0 (the kernel divides by it)")
    if not 2 <= int(attr(node, "n_levels")) <= 2**24:
        raise checks.fail(node, f"n_levels {attr(node, 'n_levels')} is not in [2, 2^24]")


def prepare(node: Node) -> ISoftmaxParams:
    x = node.inputs[0]
    assert x is not None
    length = x.shape[-1] if x.shape else 1
    try:
        table = y_table(*(int(attr(node, k)) for k in ("coeff_a", "coeff_b", "coeff_c", "log2")))
    except OverflowError as e:
        raise checks.fail(node, f"{e}; Deeploy's kernel would overflow") from None
    if table[0] == 0 or length * max(table) >= 2**32:
        raise checks.fail(node, f"the exponentials of a row of {length} (largest {max(table)}) sum to 0 or "
                                "overflow 32 bits")
    n = int(attr(node, "n_levels"))
    return ISoftmaxParams(rows(node, x, length), length, n - 1, -(n // 2), np.array(table, np.uint32))


def reference(node: Node, p: ISoftmaxParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(p.rows, p.length)
    y = p.table[x.max(axis=1, keepdims=True) - x].astype(np.int64)
    q = (y * p.levels_minus_one % 2**32) // y.sum(axis=1, keepdims=True)
    return [wrap(q + p.output_offset, 8).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: ISoftmaxParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_isoftmax_s8", "mote_isoftmax_params",
                 {"rows": p.rows, "length": p.length, "levels_minus_one": p.levels_minus_one,
                  "output_offset": p.output_offset, "table": em.const(p.table, "isoftmax_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    return node.outputs[0].size  # one multiply (by n_levels - 1) per element


OP = register(OpDef("isoftmax", same_shape, prepare, reference, emit, macs=macs, check=check,
                    attrs={"coeff_a": REQUIRED, "coeff_b": REQUIRED, "coeff_c": REQUIRED, "log2": REQUIRED,
                           "n_levels": 256}))
