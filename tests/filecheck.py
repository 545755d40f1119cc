"""A small FileCheck for tests that read mote's text forms (e.g. Graph.dump).

Each pattern line is a directive and a substring to look for in a line of the text:
  CHECK: s        the first line at or after the last match that contains s
  CHECK-NEXT: s   the line right after the last match contains s
  CHECK-SAME: s   the last matched line contains s too
  CHECK-NOT: s    no line between the last match and the next one (or the end) contains s
Blank pattern lines are skipped; leading spaces are ignored. A failure says which directive and shows the text.
"""

from __future__ import annotations

_KINDS = ("CHECK-NEXT:", "CHECK-SAME:", "CHECK-NOT:", "CHECK:")


def check(text: str, patterns: str) -> None:
    lines = text.splitlines()
    position = 0  # the first line a CHECK may match
    matched = False
    forbidden: list[str] = []
    for directive in (line.strip() for line in patterns.splitlines()):
        if not directive:
            continue
        kind = next((k for k in _KINDS if directive.startswith(k)), None)
        if kind is None:
            raise ValueError(f"not a CHECK directive: {directive!r}")
        needle = directive[len(kind):].strip()
        if kind == "CHECK-NOT:":
            forbidden.append(needle)
            continue
        if kind in ("CHECK-NEXT:", "CHECK-SAME:"):
            if not matched:
                raise ValueError(f"{directive!r} has no CHECK before it")
            at = position if kind == "CHECK-NEXT:" else position - 1
            found = at if at < len(lines) and needle in lines[at] else None
        else:
            found = next((i for i in range(position, len(lines)) if needle in lines[i]), None)
        if found is None:
            _fail(f"{directive!r} did not match after line {position}", text)
        if kind != "CHECK-SAME:":  # a CHECK-NOT before it still covers the lines up to the next match
            _check_absent(forbidden, lines, position, found, text)
            forbidden, position, matched = [], found + 1, True
    _check_absent(forbidden, lines, position, len(lines), text)


def _check_absent(forbidden: list[str], lines: list[str], start: int, end: int, text: str) -> None:
    for needle in forbidden:
        for i in range(start, end):
            if needle in lines[i]:
                _fail(f"'CHECK-NOT: {needle}' found on line {i}: {lines[i]!r}", text)


def _fail(message: str, text: str) -> None:
    numbered = "\n".join(f"{i:4} {line}" for i, line in enumerate(text.splitlines()))
    raise AssertionError(f"{message}\n{numbered}")
