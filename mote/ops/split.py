"""SPLIT and SPLIT_V: one tensor cut along an axis into several, bytes copied as they are (TFLite Micro
neither requantizes nor checks the outputs' quantization). float32, int8, int16 and int32, as TFLite Micro
runs them.

  split    inputs [axis (constant int32 scalar), x]; attr num_splits: equal parts
  split_v  inputs [x, size_splits (constant int32 [num_splits], one may be -1: the rest), axis]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register

DTYPES = (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32)


@dataclass(frozen=True)
class SplitParams:
    outer: int  # product of the dimensions before the axis
    chunks: tuple[int, ...]  # bytes each output takes from each outer row, in order


def _parts(node: Node) -> tuple[Tensor, int, list[int]]:
    """The input, the axis (non-negative) and each output's extent along it, checked."""
    wanted = 2 if node.op == "split" else 3
    if len(node.inputs) != wanted or not node.outputs:
        raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; the op takes "
                                f"{wanted} inputs and produces at least one output")
    if attr(node, "num_splits") != len(node.outputs):
        raise checks.fail(node, f"num_splits is {attr(node, 'num_splits')} but the node has {len(node.outputs)} "
                                "outputs")
    if node.op == "split":
        axis_t, x = checks.present(node, 0, "axis"), checks.present(node, 1, "input")
    else:
        x, axis_t = checks.present(node, 0, "input"), checks.present(node, 2, "axis")
    checks.dtype(node, axis_t, "axis", DType.INT32)
    checks.constant(node, axis_t, "axis")
    if axis_t.size != 1:
        raise checks.fail(node, f"the axis {axis_t.name!r} holds {axis_t.size} values; it must be one")
    rank = len(x.shape)
    axis = int(np.asarray(axis_t.data).reshape(-1)[0])
    if not -rank <= axis < rank:
        raise checks.fail(node, f"axis {axis} is out of range for a {rank}-D input")
    axis %= rank
    extent, count = x.shape[axis], len(node.outputs)
    if node.op == "split":
        if count == 0 or extent % count:
            raise checks.fail(node, f"{count} outputs do not split the axis of {extent} into equal parts")
        return x, axis, [extent // count] * count
    sizes_t = checks.present(node, 1, "size_splits")
    checks.dtype(node, sizes_t, "size_splits", DType.INT32)
    checks.constant(node, sizes_t, "size_splits")
    sizes = [int(s) for s in np.asarray(sizes_t.data).reshape(-1)]
    if len(sizes) != count or sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise checks.fail(node, f"size_splits {sizes} does not give one size (or a single -1) per output ({count})")
    if -1 in sizes:
        sizes[sizes.index(-1)] = extent - sum(s for s in sizes if s != -1)
    if sum(sizes) != extent or min(sizes) < 0:
        raise checks.fail(node, f"size_splits {sizes} do not add up to the axis extent {extent}")
    return x, axis, sizes


def check(node: Node) -> None:
    x, _, _ = _parts(node)
    checks.dtype(node, x, "input", *DTYPES)
    for k, out in enumerate(node.outputs):
        checks.dtype(node, out, f"output {k}", x.dtype)


def shape(node: Node) -> list[tuple[int, ...]]:
    x, axis, sizes = _parts(node)
    return [tuple(size if d == axis else n for d, n in enumerate(x.shape)) for size in sizes]


def prepare(node: Node) -> SplitParams:
    x, axis, sizes = _parts(node)
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64)) * x.dtype.itemsize
    return SplitParams(int(np.prod(x.shape[:axis], dtype=np.int64)), tuple(s * inner for s in sizes))


def reference(node: Node, p: SplitParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, axis, sizes = _parts(node)
    data = inputs[1] if node.op == "split" else inputs[0]
    return list(np.split(np.asarray(data), np.cumsum(sizes)[:-1], axis=axis))


def emit(node: Node, p: SplitParams, em: Emitter) -> CCall:
    x = node.inputs[1] if node.op == "split" else node.inputs[0]
    assert x is not None
    pointers = ", ".join(em.tensor(t) for t in node.outputs)
    fields: dict[str, int | str] = {"num_outputs": len(p.chunks), "outer": p.outer,
                                    "chunks": em.const(np.array(p.chunks, dtype=np.int32), "split_chunks")}
    # The output pointers are arena addresses: a C99 compound literal at the call.
    return CCall("mote_split", "mote_split_params", fields, [em.tensor(x), f"(void *const[]){{{pointers}}}"])


register(OpDef("split", shape, prepare, reference, emit, tflite=("SPLIT",), check=check,
               attrs={"num_splits": REQUIRED}, dtypes=DTYPES))
register(OpDef("split_v", shape, prepare, reference, emit, tflite=("SPLIT_V",), check=check,
               attrs={"num_splits": REQUIRED}, dtypes=DTYPES))
