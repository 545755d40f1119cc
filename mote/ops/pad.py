"""PAD: int8 constant padding with the output zero point (real 0), up to 5-D as TFLite Micro.

Input bytes are copied unchanged (TFLite Micro does not requantize, even if input and output
quantization differ) and every new element is the output zero point. The paddings must be a constant
int32 [rank, 2] tensor of non-negative (before, after) counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node
from mote.ops import checks
from mote.ops.add import quantized_int8
from mote.ops.registry import CCall, Emitter, OpDef, register

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


def prepare(node: Node) -> PadParams:
    x, out = quantized_int8(node, node.inputs[0]), quantized_int8(node, node.outputs[0])
    p = paddings(node)
    lead = MAX_RANK - len(x.shape)
    out_shape = shape(node)[0]
    return PadParams((1,) * lead + tuple(x.shape), (1,) * lead + tuple(out_shape),
                     (0,) * lead + tuple(int(b) for b in p[:, 0]), out.zero_point)


def reference(node: Node, p: PadParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], dtype=np.int8).reshape(p.in_shape)
    widths = [(b, o - n - b) for n, o, b in zip(p.in_shape, p.out_shape, p.before)]
    out = np.pad(x, widths, constant_values=p.pad_value)
    return [out.reshape(node.outputs[0].shape)]


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


def emit(node: Node, p: PadParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    p = merged(p)
    fields: dict[str, int | str] = {
        "in_shape": em.const(np.array(p.in_shape, dtype=np.int32), "pad_in_shape"),
        "out_shape": em.const(np.array(p.out_shape, dtype=np.int32), "pad_out_shape"),
        "before": em.const(np.array(p.before, dtype=np.int32), "pad_before"),
        "pad_value": p.pad_value}
    return CCall("mote_pad_s8", "mote_pad_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    checks.int8_with_int32_constant(node, "paddings")


OP = register(OpDef("pad", shape, prepare, reference, emit, tflite=("PAD",), check=check))
