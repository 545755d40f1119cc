"""ITA_PARTIAL_MAX: ITA's streaming softmax of the integer dialect (Deeploy's ITAPartialMax /
ITAPartialMax_s8), exact.

Per row of the last axis, in groups of group_width: a running maximum m (from -128) and a running sum s
(from 0); for each group with maximum c, s = (s >> (c > m ? (c - m + 16) >> 5 : 0)) + sum(256 >> shift) over
the group, shift = (max(m, c) - x + 16) >> 5, then m = max(m, c). Finally
    inv = (n_levels / 2 - 1) * 256 / s      (uint32; ITA scales to 127)
    out = int8((inv >> shift) - n_levels / 2),  shift = (m - x + 16) >> 5.
The output is unsigned (Deeploy's softmax type), stored with zero point -n_levels / 2.

inputs [x int8]; attrs group_width, n_levels. The row length must be a multiple of group_width.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.dialect_int import int8_in, rows, same_shape, wrap
from mote.ops.ita_max import shifts
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class ItaPartialMaxParams:
    rows: int
    length: int
    group_width: int
    numerator: int  # (n_levels / 2 - 1) * 256
    output_offset: int  # -(n_levels / 2)


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = int8_in(node)
    n, width = int(attr(node, "n_levels")), int(attr(node, "group_width"))
    length = x.shape[-1] if x.shape else 1
    if not 4 <= n <= 2**24:
        raise checks.fail(node, f"n_levels {n} is not in [4, 2^24]")
    if width <= 0 or length % width:
        raise checks.fail(node, f"rows of {length} elements are not whole groups of group_width {width}")


def prepare(node: Node) -> ItaPartialMaxParams:
    x = node.inputs[0]
    assert x is not None
    length = x.shape[-1] if x.shape else 1
    n = int(attr(node, "n_levels"))
    if length * 256 >= 2**32:
        raise checks.fail(node, f"rows of {length} elements overflow the 32-bit sum")
    return ItaPartialMaxParams(rows(node, x, length), length, int(attr(node, "group_width")),
                               (n // 2 - 1) * 256, -(n // 2))


def reference(node: Node, p: ItaPartialMaxParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(p.rows, p.length)
    running = np.full((p.rows, 1), -128, np.int64)
    total = np.zeros((p.rows, 1), np.int64)
    for g in range(0, p.length, p.group_width):
        group = x[:, g:g + p.group_width]
        current = group.max(axis=1, keepdims=True)
        rescale = np.where(current > running, shifts(current - running), 0)
        running = np.maximum(running, current)
        total = (total >> rescale) + (256 >> shifts(running - group)).sum(axis=1, keepdims=True)
    shift = shifts(running - x)
    return [wrap((p.numerator // total >> shift) + p.output_offset, 8).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: ItaPartialMaxParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_ita_partial_max_s8", "mote_ita_partial_max_params",
                 {"rows": p.rows, "length": p.length, "group_width": p.group_width, "numerator": p.numerator,
                  "output_offset": p.output_offset}, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("ita_partial_max", same_shape, prepare, reference, emit, check=check,
                    attrs={"group_width": REQUIRED, "n_levels": 256}))
