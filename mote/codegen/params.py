"""A kernel call's params struct as a static const definition of model.c."""

from __future__ import annotations

from mote.c_text import c_literal
from mote.ops import CCall


def params_block(name: str, call: CCall) -> str:
    fields = "".join(f"  .{k} = {c_literal(v)},\n" for k, v in call.fields.items())
    return f"static const {call.params_type} {name} = {{\n{fields}}};\n"
