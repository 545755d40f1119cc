"""PAD's planning, for every dtype: the paddings, the output shape, the parameters of mote_pad_s8."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node

MAX_RANK = 5  # TFLite's PadKernelMaxDimensionCount


@dataclass(frozen=True)
class PadParams:
    in_shape: tuple[int, ...]  # extended to MAX_RANK with leading 1s
    out_shape: tuple[int, ...]
    before: tuple[int, ...]  # leading pad per dimension
    pad_value: int


def paddings(node: Node) -> np.ndarray:
    """The [rank, 2] (before, after) counts, validated."""
    x, pads = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else None
    assert x is not None
    if pads is None or pads.data is None:
        raise UnsupportedError(f"node {node.name!r} (pad): the paddings must be a constant tensor")
    if len(x.shape) > MAX_RANK:
        raise UnsupportedError(f"node {node.name!r} (pad): {len(x.shape)}-D input; TFLite Micro pads up to "
                               f"{MAX_RANK}-D")
    p = np.asarray(pads.data, dtype=np.int64)
    if p.size != 2 * len(x.shape):
        raise UnsupportedError(f"node {node.name!r} (pad): paddings {p.tolist()} do not give (before, after) "
                               f"for each of the {len(x.shape)} input dimensions")
    p = p.reshape(len(x.shape), 2)
    if (p < 0).any():
        raise UnsupportedError(f"node {node.name!r} (pad): negative paddings {p.tolist()} are not supported")
    return p


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    p = paddings(node)
    return [tuple(int(n + b + a) for n, (b, a) in zip(x.shape, p))]


def merged(p: PadParams) -> PadParams:
    """The same padding with each unpadded innermost dimension folded into the one outside it, so
    that the kernel copies rows as long as possible (NHWC padded in H and W: rows of W * C bytes)."""
    ins, outs, before = list(p.in_shape), list(p.out_shape), list(p.before)
    while len(ins) > 1 and ins[-1] == outs[-1] and before[-1] == 0:
        n = ins.pop()
        outs.pop()
        before.pop()
        ins[-1], outs[-1], before[-1] = ins[-1] * n, outs[-1] * n, before[-1] * n
    lead = MAX_RANK - len(ins)
    return PadParams((1,) * lead + tuple(ins), (1,) * lead + tuple(outs), (0,) * lead + tuple(before), p.pad_value)
