"""Numpy-style broadcasting of two inputs, reduced at compile time to a few strided loops.

Shared by add, sub and mul. Their C kernels walk the output in row-major order as `rank` nested
loops over `shape`; input a advances by `a_strides[d]` elements per step of loop d (0 where a is
broadcast), input b likewise. Adjacent dimensions with the same broadcast pattern are merged, so
same-shape inputs become one contiguous loop and, e.g., [n, h, w, c] + [c] becomes two loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node
from mote.ops.common import broadcast_shape
from mote.ops.registry import Emitter

MAX_RANK = 6  # MOTE_BCAST_MAX_DIMS in mote_broadcast.h; TFLite Micro broadcasts up to 6-D too


@dataclass(frozen=True)
class Broadcast:
    shape: tuple[int, ...]  # loop extents, outermost first
    a_strides: tuple[int, ...]
    b_strides: tuple[int, ...]

    def fields(self, em: Emitter) -> dict[str, int | str]:
        return {"rank": len(self.shape),
                "shape": em.const(np.array(self.shape, dtype=np.int32), "bcast_shape"),
                "a_strides": em.const(np.array(self.a_strides, dtype=np.int32), "bcast_strides"),
                "b_strides": em.const(np.array(self.b_strides, dtype=np.int32), "bcast_strides")}


def binary_inputs(node: Node) -> tuple[tuple[int, ...], tuple[int, ...]]:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return a.shape, b.shape


def output_shape(node: Node) -> list[tuple[int, ...]]:
    a, b = binary_inputs(node)
    try:
        return [broadcast_shape(a, b)]
    except ValueError:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): input shapes {list(a)} and {list(b)} "
                               "do not broadcast") from None


def plan_broadcast(node: Node) -> Broadcast:
    a_shape, b_shape = binary_inputs(node)
    out = output_shape(node)[0]
    if len(out) > MAX_RANK:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): {len(out)}-D broadcasting is not supported "
                               f"(at most {MAX_RANK}-D)")
    rank = len(out)
    a_ext = (1,) * (rank - len(a_shape)) + tuple(a_shape)
    b_ext = (1,) * (rank - len(b_shape)) + tuple(b_shape)
    # (extent, a broadcast, b broadcast) per output dimension; extent-1 dimensions vanish.
    dims = [(n, a == 1 and n != 1, b == 1 and n != 1) for n, a, b in zip(out, a_ext, b_ext) if n != 1]
    merged: list[list] = []
    for n, a_bc, b_bc in dims:
        if merged and merged[-1][1:] == [a_bc, b_bc]:
            merged[-1][0] *= n
        else:
            merged.append([n, a_bc, b_bc])
    if not merged:
        merged = [[1, False, False]]
    shape = tuple(m[0] for m in merged)
    return Broadcast(shape, _strides(shape, [m[1] for m in merged]), _strides(shape, [m[2] for m in merged]))


def _strides(shape: tuple[int, ...], broadcast: list[bool]) -> tuple[int, ...]:
    """Row-major element strides of an input that has extent 1 wherever it is broadcast."""
    strides = []
    step = 1
    for n, bc in zip(reversed(shape), reversed(broadcast)):
        strides.append(0 if bc else step)
        step *= 1 if bc else n
    return tuple(reversed(strides))


def broadcast_inputs(node: Node, inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Both inputs widened to int64 and broadcast to the output shape."""
    out = output_shape(node)[0]
    a = np.broadcast_to(np.asarray(inputs[0], dtype=np.int64), out)
    b = np.broadcast_to(np.asarray(inputs[1], dtype=np.int64), out)
    return a, b
