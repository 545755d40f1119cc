"""One ONNX node -> its handler (QDQ, QOperator, float islands or integer dialect), constant folding (fold.py),
and the errors."""

from __future__ import annotations

from typing import Any

from mote.errors import UnsupportedError
from mote.frontend.onnx import floats, integer, movement, norms, qdq, qop, resize, sequence, tables
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.fold import fold, foldable
from mote.frontend.onnx.values import Value

_DOMAINS = {"": "", "ai.onnx": "", "com.microsoft": "com.microsoft"}


def _tables(dialect: str) -> dict[tuple[str, str], tuple[qdq.Handler, set[str]]]:
    found = {("", op): h for op, h in {**movement.HANDLERS, **qdq.HANDLERS}.items()}
    for more in (qop.HANDLERS, floats.HANDLERS, resize.HANDLERS, sequence.HANDLERS, norms.HANDLERS):
        found.update(more)
    if dialect == "integer":
        found.update(integer.HANDLERS)
    else:
        found.update(tables.handlers(found))  # elementwise ops of one quantized tensor as tables
    return found


def attributes(node: Any) -> dict[str, Any]:
    from onnx import helper

    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        if isinstance(v, bytes):
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
    if ctx.dialect == "integer" and node.op_type == "RequantShift":
        key = ("", "RequantShift")  # exporters put it in various custom domains
    tables = _tables(ctx.dialect)
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
