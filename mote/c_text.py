"""Python values as C text: identifiers, comments, literals, struct initializers.

Names come from the model file, which is untrusted: a name must never change what the C around it
means. Every name reaches C through `c_safe_text` (inside a comment or a string literal, via
`c_quoted`) or `c_identifier`, never raw.
"""

from __future__ import annotations

import math
import re

NAME_LIMIT = 64  # characters of a name kept in comments and messages; longer names end in "..."

# Two-character sequences that mean something to C inside a comment or a string literal: a comment's
# start or end, a line comment, and the start of a trigraph (??/ is a backslash, ??' a caret, ...).
_PAIRS = frozenset({"/*", "*/", "//", "??"})

_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local "
    "asm typeof bool true false alignas alignof static_assert thread_local nullptr constexpr".split())


def _printable(ch: str) -> str:
    """`ch` itself if it is printable ASCII other than a backslash or a double quote, else `<U+XXXX>`
    (a line break, NUL, a bidi control, any non-ASCII letter: visible, and inert in C)."""
    return ch if " " <= ch <= "~" and ch not in '\\"' else f"<U+{ord(ch):04X}>"


def c_safe_text(text: str, limit: int = NAME_LIMIT) -> str:
    """`text` as printable ASCII that means nothing to C inside a comment or a string literal: no
    backslash (so no line splice), no double quote, no control or non-ASCII character, and a space
    between the two characters of `/*`, `*/`, `//` and `??` (trigraphs). At most `limit` characters
    of the original are kept; a longer text ends in "..."."""
    out: list[str] = []
    for ch in text[:limit]:
        piece = _printable(ch)
        if out and out[-1][-1] + piece[0] in _PAIRS:
            out.append(" ")
        out.append(piece)
    if len(text) > limit:
        out.append("...")
    return "".join(out)


def c_quoted(text: str, limit: int = NAME_LIMIT) -> str:
    """`text` in double quotes, safe as a C string literal and inside a C comment (`c_safe_text`)."""
    return f'"{c_safe_text(text, limit)}"'


def c_identifier(text: str, limit: int = 48) -> str:
    """A C identifier made from `text`: ASCII letters, digits and single underscores, never starting with
    a digit or an underscore, never a keyword. Different texts can give the same identifier: callers make
    it unique (a counter prefix, as the constant pool does)."""
    word = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:limit].rstrip("_")
    if not word or word[0].isdigit() or word in _C_KEYWORDS:
        word = f"n_{word}".rstrip("_")
    return word


def c_literal(value: int | float | str) -> str:
    """An int or float as C; a str is C text mote generated (an array name, an arena address, a
    `c_quoted` string), passed through."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "NAN"  # <math.h> macros: the model's C includes the header, it links no libm
        if math.isinf(value):
            return "HUGE_VALF" if value > 0 else "-HUGE_VALF"
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
