"""One ONNX node -> its handler (QDQ, QOperator, float islands or integer dialect), constant folding (fold.py),
and the errors."""

from __future__ import annotations

from typing import Any

from mote.errors import UnsupportedError
from mote.frontend.onnx import (
    floats,
    integer,
    integer_movement,
    integer_nonlinear,
    movement,
    norms,
    qdq,
    qop,
    resize,
    sequence,
    tables,
)
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.fold import fold, foldable
from mote.frontend.onnx.values import Value

_DOMAINS = {"": "", "ai.onnx": "", "com.microsoft": "com.microsoft"}


def _tables(dialect: str) -> dict[tuple[str, str], tuple[qdq.Handler, set[str]]]:
    found = {("", op): h for op, h in {**movement.HANDLERS, **qdq.HANDLERS}.items()}
    for op in ("QuantizeLinear", "DequantizeLinear"):  # onnxruntime's own, which carry int4 before opset 21
        found[("com.microsoft", op)] = qdq.HANDLERS[op]
    for more in (qop.HANDLERS, floats.HANDLERS, resize.HANDLERS, sequence.HANDLERS, norms.HANDLERS):
        found.update(more)
    if dialect == "integer":
        found.update(integer_movement.HANDLERS)
        found.update(integer.HANDLERS)
        found.update(integer_nonlinear.HANDLERS)
    else:
        found.update(tables.handlers(found))  # elementwise ops of one quantized tensor as tables
    return found


def attributes(node: Any) -> dict[str, Any]:
    """A node's attributes as Python values; tensor attributes (Deeploy's exporters store `div`, `n_levels`,
    `signed` as tensors) as numpy arrays."""
    from onnx import TensorProto, helper, numpy_helper

    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        if isinstance(v, TensorProto):
            v = numpy_helper.to_array(v)
        elif isinstance(v, bytes):
            v = v.decode(errors="replace")
        elif isinstance(v, list):
            v = [x.decode(errors="replace") if isinstance(x, bytes) else x for x in v]
        out[a.name] = v
    return out


def convert_node(ctx: Context, node: Any) -> list[Value | None]:
    """The values of the node's outputs; mote nodes are appended to ctx.b as a side effect."""
    domain = _DOMAINS.get(node.domain, node.domain)
    attrs = attributes(node)
    key = (domain, node.op_type)
    tables = _tables(ctx.dialect)
    if ctx.dialect == "integer" and domain not in ("", "com.microsoft") and ("", node.op_type) in tables:
        key = ("", node.op_type)  # exporters put the integer dialect's ops in custom domains (PACTOps, ...)
    inputs = [ctx.value(node, i) for i in range(len(node.input))]
    if key in tables and not (domain == "" and foldable(node, inputs)):
        handler, allowed = tables[key]
        extra = sorted(set(attrs) - allowed)
        if extra:
            raise UnsupportedError(f"{ctx.where(node)}: attribute {extra[0]!r} is not supported")
        return handler(ctx, node, attrs)
    if domain == "" and foldable(node, inputs):
        return fold(ctx, node, inputs)
    supported = sorted({op for _, op in tables})
    raise UnsupportedError(f"{ctx.where(node)}: operator {node.op_type} is not supported; mote supports "
                           f"{', '.join(supported)}")
