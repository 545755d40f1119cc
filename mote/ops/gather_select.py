"""GATHER, SELECT_V2, ARG_MAX and ARG_MIN: ops that pick elements by runtime values.

  gather      inputs [params, indices (int32, or int64 as ONNX's token ids; runtime or constant)]; attrs axis,
              batch_dims (0 only):
              out = params[..., indices, ...] along axis. An index outside the axis makes the C return
              MOTE_ERROR (TFLite Micro fails the same way) and the reference raise.
  select_v2   inputs [condition (bool), x, y], broadcast together: condition ? x : y
  arg_max, arg_min  inputs [x, axis (constant)]; output int32 (output_type; TFLite Micro runs no int64): the
              first position of the largest (smallest) value along the axis, compared with > (<)
Bytes are copied as they are; values are compared in their own type (quantized ones raw, as TFLite Micro).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.math_binary import ELEMENT
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

MAX_RANK = 6  # MOTE_SELECT_MAX_DIMS
DTYPES = {"gather": (DType.FLOAT32, DType.INT8),
          "select_v2": (DType.FLOAT32, DType.INT8, DType.INT16),
          "arg_max": (DType.FLOAT32, DType.INT8),
          "arg_min": (DType.FLOAT32, DType.INT8)}


@dataclass(frozen=True)
class PickParams:
    outer: int = 1  # gather, arg: product of the dimensions before the axis
    extent: int = 1  # the axis
    inner: int = 1  # elements after the axis
    count: int = 0  # gather: indices
    strides: tuple[tuple[int, ...], ...] = ()  # select: per input (condition, x, y), elements per output step
    shape: tuple[int, ...] = ()  # select: the output


def _axis(node: Node, x: Tensor) -> int:
    if node.op == "gather":
        axis = attr(node, "axis")
    else:
        a = checks.present(node, 1, "axis")
        checks.dtype(node, a, "axis", DType.INT32, DType.INT64)
        checks.constant(node, a, "axis")
        if a.size != 1:
            raise checks.fail(node, f"the axis {a.name!r} holds {a.size} values; it must be one")
        axis = int(np.asarray(a.data).reshape(-1)[0])
    rank = len(x.shape)
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise checks.fail(node, f"axis {axis!r} is out of range for a {rank}-D input")
    return axis % rank


def check_select(node: Node) -> None:
    checks.input_count(node, 3)
    c, x, y = (checks.present(node, i, role) for i, role in enumerate(("condition", "x", "y")))
    checks.dtype(node, c, "condition", DType.BOOL)
    checks.dtype(node, x, "x", *DTYPES["select_v2"])
    checks.dtype(node, y, "y", x.dtype)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    try:
        np.broadcast_shapes(c.shape, x.shape, y.shape)
    except ValueError:
        raise checks.fail(node, f"shapes {list(c.shape)}, {list(x.shape)} and {list(y.shape)} do not "
                                "broadcast") from None
    if len(node.outputs[0].shape) > MAX_RANK:
        raise checks.fail(node, f"the output is {len(node.outputs[0].shape)}-D; the op takes at most {MAX_RANK}-D")


def check_gather(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *DTYPES[node.op])
    _axis(node, x)
    checks.dtype(node, checks.present(node, 1, "indices"), "indices", DType.INT32, DType.INT64)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    if attr(node, "batch_dims") != 0:
        raise checks.fail(node, f"batch_dims {attr(node, 'batch_dims')} is not supported (only 0)")


def check_arg(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", *DTYPES[node.op])
    _axis(node, x)
    checks.dtype(node, node.outputs[0], "output", DType.INT32)  # TFLite Micro writes no int64 positions


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    if node.op == "select_v2":
        return [tuple(np.broadcast_shapes(*(t.shape for t in node.inputs if t is not None)))]
    axis = _axis(node, x)
    if node.op == "gather":
        indices = node.inputs[1]
        assert indices is not None
        return [(*x.shape[:axis], *indices.shape, *x.shape[axis + 1:])]
    return [tuple(n for d, n in enumerate(x.shape) if d != axis)]


def _broadcast_strides(t: Tensor, out: tuple[int, ...]) -> tuple[int, ...]:
    shape = (1,) * (len(out) - len(t.shape)) + t.shape
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    return tuple(0 if n == 1 else s for n, s in zip(shape, strides))


def prepare(node: Node) -> PickParams:
    x = node.inputs[0]
    assert x is not None
    if node.op == "select_v2":
        out = shape(node)[0] or (1,)
        return PickParams(strides=tuple(_broadcast_strides(t, out) for t in node.inputs if t is not None),
                          shape=out)
    axis = _axis(node, x)
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    indices = node.inputs[1]
    count = indices.size if node.op == "gather" and indices is not None else 0
    return PickParams(outer, x.shape[axis], inner, count)


def reference(node: Node, p: PickParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = node.outputs[0]
    if node.op == "select_v2":
        return [np.where(*(np.asarray(v) for v in inputs))]
    x = np.asarray(inputs[0]).reshape(p.outer, p.extent, p.inner)
    if node.op == "gather":
        indices = np.asarray(inputs[1]).reshape(-1).astype(np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= p.extent):
            raise MoteError(f"node {node.name!r} (gather): an index is outside [0, {p.extent}); TFLite Micro fails "
                            "on it too")
        return [x[:, indices, :].reshape(out.shape)]
    found = np.argmax(x, axis=1) if node.op == "arg_max" else np.argmin(x, axis=1)  # first occurrence, as C
    return [found.astype(out.dtype.np).reshape(out.shape)]


def emit(node: Node, p: PickParams, em: Emitter) -> CCall:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    if node.op == "select_v2":
        c, a, b = node.inputs
        assert c is not None and a is not None and b is not None
        fields: dict[str, int | str] = {
            "rank": len(p.shape), "shape": em.const(np.array(p.shape, np.int32), "select_shape"),
            **{f"{role}_strides": em.const(np.array(s, np.int32), "select_strides")
               for role, s in zip(("condition", "x", "y"), p.strides)},
            "element_bytes": a.dtype.itemsize}
        return CCall("mote_select", "mote_select_params", fields,
                     [em.tensor(c), em.tensor(a), em.tensor(b), em.tensor(out)])
    fields = {"outer": p.outer, "extent": p.extent, "inner": p.inner}
    if node.op == "gather":
        indices = node.inputs[1]
        assert indices is not None
        fields.update(count=p.count, element_bytes=x.dtype.itemsize, index_type=ELEMENT[indices.dtype])
        return CCall("mote_gather", "mote_gather_params", fields, [em.tensor(x), em.tensor(indices), em.tensor(out)])
    fields.update(type=ELEMENT[x.dtype], output_type=ELEMENT[out.dtype], largest=int(node.op == "arg_max"))
    return CCall("mote_arg_max_min", "mote_arg_max_min_params", fields, [em.tensor(x), em.tensor(out)])


register(OpDef("gather", shape, prepare, reference, emit, tflite=("GATHER",), check=check_gather,
               attrs={"axis": 0, "batch_dims": 0}, dtypes=DTYPES["gather"]))
register(OpDef("select_v2", shape, prepare, reference, emit, tflite=("SELECT_V2",), check=check_select,
               dtypes=DTYPES["select_v2"]))
for _name in ("arg_max", "arg_min"):
    register(OpDef(_name, shape, prepare, reference, emit, tflite=(_name.upper(),), check=check_arg,
                   dtypes=DTYPES[_name]))
