"""ITA_MAX: ITA's shift-based softmax of the integer dialect (Deeploy's ITAMax / ITAMax_s8), exact.

Per row of the last axis, with d = max - x and shift = (d + 16) >> 5 (0..8):
    inv = (n_levels - 1) * 256 / sum(256 >> shift)      (uint32)
    out = int8((inv >> shift) - n_levels / 2)
The output is unsigned (Deeploy's softmax type), stored with zero point -n_levels / 2.

inputs [x int8]; attrs n_levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.dialect_int import int8_in, rows, same_shape, wrap
from mote.ops.registry import CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class ItaMaxParams:
    rows: int
    length: int
    numerator: int  # (n_levels - 1) * 256
    output_offset: int  # -(n_levels / 2)


def check(node: Node) -> None:
    checks.input_count(node, 1)
    int8_in(node)
    if not 2 <= int(attr(node, "n_levels")) <= 2**24:
        raise checks.fail(node, f"n_levels {attr(node, 'n_levels')} is not in [2, 2^24]")


def prepare(node: Node) -> ItaMaxParams:
    x = node.inputs[0]
    assert x is not None
    length = x.shape[-1] if x.shape else 1
    n = int(attr(node, "n_levels"))
    if length * 256 >= 2**32:
        raise checks.fail(node, f"rows of {length} elements overflow the 32-bit sum")
    return ItaMaxParams(rows(node, x, length), length, (n - 1) * 256, -(n // 2))


def shifts(d: np.ndarray) -> np.ndarray:
    """The right shift standing for exp(-d): (d + 16) >> 5."""
    return (np.asarray(d, np.int64) + 16) >> 5


def reference(node: Node, p: ItaMaxParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(p.rows, p.length)
    shift = shifts(x.max(axis=1, keepdims=True) - x)
    inverse = p.numerator // (256 >> shift).sum(axis=1, keepdims=True)
    return [wrap((inverse >> shift) + p.output_offset, 8).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: ItaMaxParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_ita_max_s8", "mote_ita_max_params",
                 {"rows": p.rows, "length": p.length, "numerator": p.numerator, "output_offset": p.output_offset},
                 [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("ita_max", same_shape, prepare, reference, emit, check=check, attrs={"n_levels": 256}))
