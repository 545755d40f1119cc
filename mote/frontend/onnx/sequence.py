"""ONNX ops of sequence models in QDQ graphs: Gather (a token embedding or a table of positions indexed by integer
ids, a graph input of int64 or int32) and Slice (rotate_half's halves, a window of a sequence).

Both move int8 values without changing them, so they commute with dequantization: a DequantizeLinear'd constant
table gathered by run-time ids is an int8 table (in flash) and a GATHER whose output keeps the table's scale and
zero point; a Slice of a dequantized activation is a STRIDED_SLICE of the int8 tensor. The QuantizeLinear after
them (onnxruntime gives these ops' outputs their input's parameters) then costs nothing. An id outside the table
makes the generated C return an error and the reference interpreter raise (ONNX's negative ids, counted from the
end, are refused the same way).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.movement import view
from mote.frontend.onnx.qdq import Handler
from mote.frontend.onnx.values import Act, Deq, QConst, Value, identity
from mote.ir import DType, Quant

INDEX_DTYPES = (DType.INT32, DType.INT64)


def _table(ctx: Context, node: Any) -> Act:
    """Gather's data as an int8 Act: a quantized constant (an embedding, a cos/sin table) or an activation."""
    v = ctx.value(node, 0)
    if isinstance(v, Deq):
        return ctx.b.to_layout(v.act, identity(v.act.rank))
    if isinstance(v, QConst):
        if v.scale.size > 1 or v.bits != 8:
            raise UnsupportedError(f"{ctx.where(node)}: the gathered table must be an 8-bit constant with one scale "
                                   "(quantize it per tensor)")
        quant = Quant((float(v.scale[0]),), (int(v.zero_point[0]),))
        t = ctx.b.const(f"{node.output[0]}_table", v.q, DType.INT8, quant)
        return Act(t, identity(v.q.ndim))
    raise UnsupportedError(f"{ctx.where(node)}: Gather needs a quantized table (DequantizeLinear of an int8 "
                           "constant or activation); quantize the model with `mote quantize`")


def gather(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    ids = ctx.value(node, 1)
    where, name = ctx.where(node), node.output[0]
    if not isinstance(ids, Act) or ids.tensor.dtype not in INDEX_DTYPES:
        raise UnsupportedError(f"{where}: Gather's indices must be an int32 or int64 tensor computed at run time "
                               "(a graph input of token ids or positions)")
    table = _table(ctx, node)
    axis = int(attrs.get("axis", 0)) % table.rank
    ids = ctx.b.to_layout(ids, identity(ids.rank))
    out = ctx.b.node("gather", [table.tensor, ids.tensor], name, DType.INT8, table.quant, {"axis": axis})
    return [Deq(Act(out, identity(len(out.shape))))]


def slice_op(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Slice (opset >= 10: starts, ends, axes and steps as constant inputs) of an activation."""
    starts = [int(s) for s in ctx.const(node, 1, "starts").reshape(-1)]
    ends = [int(s) for s in ctx.const(node, 2, "ends").reshape(-1)]
    axes_in = ctx.value(node, 3)
    steps_in = ctx.value(node, 4)
    name = node.output[0]

    def fn(x: Act) -> Act:
        axes = [int(a) % x.rank for a in ctx.const(node, 3, "axes").reshape(-1)] if axes_in is not None \
            else list(range(len(starts)))
        steps = [int(s) for s in ctx.const(node, 4, "steps").reshape(-1)] if steps_in is not None \
            else [1] * len(starts)
        shape = x.onnx_shape
        begin, end, stride = [0] * x.rank, list(shape), [1] * x.rank
        for axis, s, e, st in zip(axes, starts, ends, steps):
            if st <= 0:
                raise UnsupportedError(f"{ctx.where(node)}: Slice with step {st} is not supported (positive only)")
            s, e = (v + shape[axis] if v < 0 else v for v in (s, e))
            begin[axis], end[axis], stride[axis] = min(max(s, 0), shape[axis]), min(max(e, 0), shape[axis]), st
        x = ctx.b.to_layout(x, identity(x.rank))
        out_shape = tuple(max(0, -(-(e - b) // st)) for b, e, st in zip(begin, end, stride))
        if 0 in out_shape:
            raise UnsupportedError(f"{ctx.where(node)}: the Slice is empty")
        consts = [ctx.b.const(f"{name}_{what}", np.array(v, np.int32), DType.INT32)
                  for what, v in (("begin", begin), ("end", end), ("strides", stride))]
        out = ctx.b.node("strided_slice", [x.tensor, *consts], name, x.tensor.dtype, x.tensor.quant)
        return Act(out, identity(x.rank))

    return view(ctx, node, fn)


HANDLERS: dict[tuple[str, str], tuple[Handler, set[str]]] = {
    ("", "Gather"): (gather, {"axis"}),
    ("", "Slice"): (slice_op, set()),
}
