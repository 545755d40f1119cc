"""CUMSUM along a constant axis, float32 or int8, exclusive or not, reversed or not, as TFLite Micro.

float32: each running sum starts at 0 and adds the elements in walking order. int8: ADD_N's arithmetic
(mote.ops.add_n): every element rescaled with 20 bits of headroom, the running sum starting from the
rescaled input offset, each output requantized from the running sum (before the element's addition when
exclusive).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.add_n import LEFT_SHIFT, rescaling
from mote.ops.registry import CCall, Emitter, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier


@dataclass(frozen=True)
class CumsumParams:
    outer: int  # elements before the axis (product of the leading dimensions)
    depth: int  # along the axis
    inner: int  # after it
    exclusive: int
    reverse: int
    input_offset: int = 0  # int8 only, as in mote.ops.add_n
    input_multiplier: int = 0
    input_shift: int = 0
    output_offset: int = 0
    output_multiplier: int = 0
    output_shift: int = 0
    act_min: int = 0
    act_max: int = 0


def _axis(node: Node) -> int:
    x = checks.present(node, 0, "input")
    a = checks.present(node, 1, "axis")
    checks.dtype(node, a, "axis", DType.INT32)
    checks.constant(node, a, "axis")
    if a.size != 1:
        raise checks.fail(node, f"the axis {a.name!r} has {a.size} values, not 1")
    axis = int(np.asarray(a.data).reshape(-1)[0])
    if not -len(x.shape) <= axis < len(x.shape):
        raise checks.fail(node, f"axis {axis} is out of range for a {len(x.shape)}-D input")
    return axis % len(x.shape)


def check(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.FLOAT32, DType.INT8)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    if not x.shape:
        raise checks.fail(node, "the input needs at least one dimension")
    _axis(node)
    for flag in ("exclusive", "reverse"):
        if not isinstance(attr(node, flag), bool):
            raise checks.fail(node, f"attribute {flag} must be true or false")
    if x.dtype is DType.INT8:
        checks.quantized(node, x, "input")
        checks.quantized(node, node.outputs[0], "output")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> CumsumParams:
    x = node.inputs[0]
    assert x is not None
    axis = _axis(node)
    dims = (int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:])),
            int(attr(node, "exclusive")), int(attr(node, "reverse")))
    if x.dtype is DType.FLOAT32:
        return CumsumParams(*dims)
    return CumsumParams(*dims, *rescaling(node))


def reference(node: Node, p: CumsumParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0]).reshape(p.outer, p.depth, p.inner)
    quantized = x.dtype == np.int8
    if quantized:
        x = multiply_by_quantized_multiplier((x.astype(np.int64) + p.input_offset) << LEFT_SHIFT,
                                             p.input_multiplier, p.input_shift)
        start = multiply_by_quantized_multiplier(np.int64(p.input_offset) << LEFT_SHIFT, p.input_multiplier,
                                                 p.input_shift)
        acc = np.full((p.outer, p.inner), start, np.int64)
    else:
        acc = np.zeros((p.outer, p.inner), np.float32)
    out = np.empty(x.shape, acc.dtype)
    for d in (range(p.depth - 1, -1, -1) if p.reverse else range(p.depth)):
        if p.exclusive:
            out[:, d], acc = acc, (acc + x[:, d]).astype(acc.dtype)
        else:
            acc = (acc + x[:, d]).astype(acc.dtype)
            out[:, d] = acc
    if quantized:
        out = multiply_by_quantized_multiplier(out, p.output_multiplier, p.output_shift) + p.output_offset
        out = np.clip(out, p.act_min, p.act_max)
    return [out.astype(node.outputs[0].dtype.np).reshape(node.outputs[0].shape)]


def emit(node: Node, p: CumsumParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    suffix = "s8" if x.dtype is DType.INT8 else "f32"
    fields: dict[str, int | str] = dict(vars(p))
    if suffix == "f32":
        fields = {k: fields[k] for k in ("outer", "depth", "inner", "exclusive", "reverse")}
    return CCall(f"mote_cumsum_{suffix}", f"mote_cumsum_{suffix}_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("cumsum", shape, prepare, reference, emit, tflite=("CUMSUM",), check=check,
                    attrs={"exclusive": False, "reverse": False}, dtypes=(DType.INT8, DType.FLOAT32)))
