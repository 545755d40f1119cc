"""CONCATENATION's planning, for every dtype: its inputs, the output shape, the parameters of the copy."""

from __future__ import annotations

from dataclasses import dataclass

from mote.errors import UnsupportedError
from mote.ir import Node, Tensor
from mote.ops.registry import attr


@dataclass(frozen=True)
class ConcatParams:
    axis: int
    outer: int  # product of the output dimensions before the axis
    chunks: tuple[int, ...]  # per input: bytes it contributes per outer step


def inputs_of(node: Node) -> list[Tensor]:
    if not node.inputs or any(t is None for t in node.inputs):
        raise UnsupportedError(f"node {node.name!r} (concatenation): needs at least one input, none absent")
    return [t for t in node.inputs if t is not None]


def shape(node: Node) -> list[tuple[int, ...]]:
    xs, axis = inputs_of(node), attr(node, "axis")
    first = xs[0].shape
    if not 0 <= axis < len(first):
        raise UnsupportedError(f"node {node.name!r} (concatenation): axis {axis} is out of range for "
                               f"{len(first)}-D inputs")
    for x in xs[1:]:
        if len(x.shape) != len(first) or any(a != b for d, (a, b) in enumerate(zip(x.shape, first)) if d != axis):
            raise UnsupportedError(f"node {node.name!r} (concatenation): input shapes {[list(t.shape) for t in xs]} "
                                   f"differ outside axis {axis}")
    return [(*first[:axis], sum(x.shape[axis] for x in xs), *first[axis + 1:])]
