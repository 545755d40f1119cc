"""Python values as C text: identifiers, comments, literals."""

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
