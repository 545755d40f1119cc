"""Rewrite README's supported-operator table from the registry (`mote ops --markdown`), in place."""

from __future__ import annotations

from pathlib import Path

from mote.cli_ops import markdown

BEGIN, END = "<!-- ops:begin -->\n", "<!-- ops:end -->"


def main() -> None:
    readme = Path(__file__).resolve().parent.parent / "README.md"
    head, rest = readme.read_text().split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    readme.write_text(head + BEGIN + markdown() + END + tail)


if __name__ == "__main__":
    main()
