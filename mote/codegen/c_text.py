"""Python values as C text: identifiers, comments, literals, struct initializers."""

from __future__ import annotations

import re


def c_identifier(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_")[:48] or "x"


def c_comment(text: str) -> str:
    return text.replace("*/", "* /").replace("\n", " ")


def c_literal(value: int | float | str) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return repr(value)  # shortest round-trip: a float32 value converts back exactly
    return str(value)


def c_struct(fields: dict[str, int | str], width: int = 96) -> str:
    """A designated initializer, `{.a = 1, .b = x}`; a long one continues on indented lines inside
    its parameter struct's field (the model's parameter structs are indented by two)."""
    items = [f".{name} = {c_literal(value)}" for name, value in fields.items()]
    one_line = "{" + ", ".join(items) + "}"
    if len(one_line) <= width:
        return one_line
    lines, line = [], ""
    for item in items:
        if line and len(line) + len(item) + 2 > width:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    return "{\n    " + "\n    ".join([*lines, line]) + "}"
