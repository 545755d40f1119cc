"""Copies planned at compile time: every output element is an input element at a position known in
advance (or a fill value). Python computes the positions by applying the op to the input's element
indices with numpy (-1: the fill); the plan is then either affine, offset + sum(index_d * stride_d), walked
by mote_strided_copy, or, where it is not (mirror padding, a padded space-to-batch), a table of positions
walked by mote_indexed_copy. Bytes move as they are: no op planned here requantizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.registry import CCall, Emitter

MAX_RANK = 6  # MOTE_STRIDED_MAX_DIMS


@dataclass(frozen=True, eq=False)
class CopyPlan:
    offset: int  # affine: the input element of output element 0
    shape: tuple[int, ...]  # affine: output loops, outermost first (merged where contiguous)
    strides: tuple[int, ...]  # affine: input elements per step of each loop
    element_bytes: int
    table: np.ndarray | None = None  # int32 input position per output element (-1: fill) when not affine
    fill: bytes = b""  # the bytes of one fill element


def affine(where: np.ndarray) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """(offset, loop extents, strides) of an index array that is affine in its indices, with extent-1
    dimensions dropped and neighbours that continue each other merged; None if it is not affine."""
    if where.size == 0:
        return 0, (0,), (0,)
    dims = [(d, n, int(np.diff(where, axis=d).flat[0]) if n > 1 else 0) for d, n in enumerate(where.shape)]
    rebuilt = int(where.flat[0]) + sum(np.arange(n).reshape([-1 if k == d else 1 for k in range(where.ndim)]) * s
                                       for d, n, s in dims)
    if np.any(where < 0) or not np.array_equal(np.broadcast_to(rebuilt, where.shape), where):
        return None
    merged: list[list[int]] = []
    for _, n, s in dims:
        if n == 1:
            continue
        if merged and merged[-1][1] == s * n:  # the outer loop steps exactly over the inner one
            merged[-1] = [merged[-1][0] * n, s]
        else:
            merged.append([n, s])
    merged = merged or [[1, 0]]
    return int(where.flat[0]), tuple(m[0] for m in merged), tuple(m[1] for m in merged)


def plan_copy(where: np.ndarray, element_bytes: int, fill: bytes = b"") -> CopyPlan:
    """The affine plan of `where` (input positions shaped as the output, -1 for the fill) when it has one
    of at most MAX_RANK loops, else its table."""
    found = affine(where)
    if found is not None and len(found[1]) <= MAX_RANK:
        return CopyPlan(*found, element_bytes)
    fill = fill or bytes(element_bytes)
    return CopyPlan(0, (), (), element_bytes, where.reshape(-1).astype(np.int32), fill)


def copy_reference(x: np.ndarray, where: np.ndarray, fill: bytes = b"") -> np.ndarray:
    """The copy in numpy: x's elements at `where`, the fill at -1."""
    flat = np.asarray(x).reshape(-1)
    value = np.frombuffer(fill or bytes(flat.dtype.itemsize), flat.dtype)[0]
    return np.where(where >= 0, flat[np.maximum(where, 0)], value).astype(flat.dtype)


def copy_call(node: Node, p: CopyPlan, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    if p.table is None:
        fields: dict[str, int | str] = {
            "rank": len(p.shape), "shape": em.const(np.array(p.shape, np.int32), "strided_shape"),
            "strides": em.const(np.array(p.strides, np.int32), "strided_strides"), "offset": p.offset,
            "element_bytes": p.element_bytes}
        return CCall("mote_strided_copy", "mote_strided_copy_params", fields, args)
    fields = {"size": int(p.table.size), "positions": em.const(p.table, "copy_positions"),
              "element_bytes": p.element_bytes, "fill": em.const(np.frombuffer(p.fill, np.uint8).copy(), "copy_fill")}
    return CCall("mote_indexed_copy", "mote_indexed_copy_params", fields, args)
