"""A 4-D transpose between the CPU's NHWC and an accelerator's activation layout, inserted only
where a region of accelerator nodes starts or where its results leave it. Into a padded output
(attrs["pads"]: (before, after) per output axis, with the zero point) where the region's first job
needs its input padded: one pass instead of a transpose and a pad."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register

NO_PADS = ((0, 0),) * 4


@dataclass(frozen=True)
class TransformParams:
    perm: tuple[int, ...]
    pads: tuple[tuple[int, int], ...]
    pad_value: int


def prepare(node: Node) -> TransformParams:
    pads = tuple(tuple(p) for p in attr(node, "pads"))
    x = node.inputs[0]
    assert x is not None
    if pads != NO_PADS:
        assert x.dtype.itemsize == 1, "padding is for int8 tensors"
    return TransformParams(tuple(attr(node, "perm")), pads, x.zero_point if x.quant is not None else 0)


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    p = prepare(node)
    return [tuple(x.shape[a] + before + after for a, (before, after) in zip(p.perm, p.pads))]


def reference(node: Node, p: TransformParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.pad(np.transpose(inputs[0], p.perm), p.pads, constant_values=p.pad_value)]


def emit(node: Node, p: TransformParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"elem_bytes": x.dtype.itemsize}
    fields.update({f"in_dim{i}": d for i, d in enumerate(x.shape)})
    fields.update({f"perm{i}": a for i, a in enumerate(p.perm)})
    fields["before"] = "{" + ", ".join(str(before) for before, _ in p.pads) + "}"
    fields["after"] = "{" + ", ".join(str(after) for _, after in p.pads) + "}"
    fields["pad_value"] = p.pad_value
    return CCall("mote_transpose", "mote_transpose_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("layout_transform", shape, prepare, reference, emit, attrs={"perm": REQUIRED, "pads": NO_PADS}))
