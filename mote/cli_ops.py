"""`mote ops`: the operators mote compiles, with the dtypes each runs, straight from the op registry (README's
table is this command's --markdown output, and a test keeps the two equal)."""

from __future__ import annotations

import argparse

from mote.ops import OPS

DTYPE_ORDER = ("int8", "int16", "int32", "int64", "uint8", "bool", "float32")


def operator_rows() -> list[tuple[str, str, str]]:
    """(TFLite builtin, mote op, dtypes) for every builtin the registry maps, sorted by builtin."""
    rows = []
    for op in OPS.values():
        dtypes = sorted((d.value for d in op.dtypes), key=DTYPE_ORDER.index)
        rows += [(builtin, op.name, ", ".join(dtypes)) for builtin in op.tflite]
    return sorted(rows)


def markdown() -> str:
    lines = ["| TFLite builtin | mote op | activation dtypes |", "|---|---|---|"]
    lines += [f"| {builtin} | `{name}` | {dtypes} |" for builtin, name, dtypes in operator_rows()]
    return "\n".join(lines) + "\n"


def add_ops_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ops", help="the TFLite operators mote compiles, and their dtypes")
    p.add_argument("--markdown", action="store_true", help="as README's Markdown table")
    p.set_defaults(func=_ops)


def _ops(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown(), end="")
        return 0
    rows = operator_rows()
    width = max(len(b) for b, _, _ in rows)
    for builtin, _, dtypes in rows:
        print(f"{builtin:<{width}}  {dtypes}")
    print(f"{len(rows)} operators")
    return 0
