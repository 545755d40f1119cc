"""A 4-D transpose between the CPU's NHWC and an accelerator's activation layout, inserted only
where a region of accelerator nodes starts or where its results leave it."""

from __future__ import annotations

import numpy as np

from mote.ir import Node
from mote.ops.registry import CCall, Emitter, OpDef, register


def prepare(node: Node) -> tuple[int, ...]:
    return tuple(node.attrs["perm"])


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [tuple(x.shape[i] for i in prepare(node))]


def reference(node: Node, perm: tuple[int, ...], inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.ascontiguousarray(np.transpose(inputs[0], perm))]


def emit(node: Node, perm: tuple[int, ...], em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"elem_bytes": x.dtype.itemsize}
    fields.update({f"in_dim{i}": d for i, d in enumerate(x.shape)})
    fields.update({f"perm{i}": a for i, a in enumerate(perm)})
    return CCall("mote_transpose", "mote_transpose_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("layout_transform", shape, prepare, reference, emit))
