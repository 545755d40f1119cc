"""The planning of a reduction over constant axes, for every dtype: the axes, the output shape, and
the input's dimensions split into kept and reduced loops (MEAN, SUM, REDUCE_MAX, REDUCE_MIN)."""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node
from mote.ops.registry import attr

MAX_DIMS = 8  # MOTE_MEAN_MAX_DIMS in mote_mean_s8.h


def resolved_axes(node: Node) -> tuple[int, ...]:
    """The reduced axes, non-negative and without duplicates (TFLite's ResolveAxis)."""
    x, axes = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else None
    assert x is not None
    if axes is None or axes.data is None:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): the axes must be a constant tensor")
    rank = len(x.shape)
    resolved = []
    for a in np.asarray(axes.data, dtype=np.int64).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise UnsupportedError(f"node {node.name!r} ({node.op}): axis {a} is out of range for a {rank}-D input")
        resolved.append(a % rank)
    return tuple(sorted(set(resolved)))


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    axes = resolved_axes(node)
    if attr(node, "keep_dims"):
        return [tuple(1 if d in axes else n for d, n in enumerate(x.shape))]
    return [tuple(n for d, n in enumerate(x.shape) if d not in axes)]


def merged_dims(in_shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[list[list[int]], list[list[int]]]:
    """([extent, stride] of kept dims, same for reduced dims); neighbours of one kind merge into one."""
    strides = [int(np.prod(in_shape[d + 1:], dtype=np.int64)) for d in range(len(in_shape))]
    kept: list[list[int]] = []
    reduced: list[list[int]] = []
    previous = None
    for d, n in enumerate(in_shape):
        if n == 1:
            continue
        group = reduced if d in axes else kept
        if previous is group:  # contiguous with the dimension before: one longer dimension
            group[-1] = [group[-1][0] * n, strides[d]]
        else:
            group.append([n, strides[d]])
        previous = group
    return kept or [[1, 0]], reduced or [[1, 0]]
