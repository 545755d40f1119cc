"""Text from a model (tensor, node, op names) on the terminal: never raw.

A name may hold rich markup (`[/]` ends a style and crashes the table), ANSI escape sequences or
other control characters (which would move the cursor, recolour or rewrite what the user sees), or
line breaks (which would split a one-line error). `plain` shows such characters as Python escapes;
`markup` also escapes rich markup, for anything printed through rich."""

from __future__ import annotations

import sys
import unicodedata

from rich.console import Console
from rich.markup import escape


def plain(text: object) -> str:
    """`text` with every control, format, separator-other-than-space or unassigned character shown as
    an escape (\\x1b, \\n, \\u202e, ...): one line, and nothing that acts on the terminal."""
    out = []
    for ch in str(text):
        if ch == " " or (ch.isprintable() and unicodedata.category(ch)[0] not in "CZ"):
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1] if ch != "\\" else "\\")
    return "".join(out)


def markup(text: object) -> str:
    """`plain(text)` with rich markup escaped, for tables and console.print."""
    return escape(plain(text))


def console() -> Console:
    """Wide enough for the tables when the output is not a terminal (rich would assume 80 columns)."""
    return Console() if sys.stdout.isatty() else Console(width=160)
