"""A mutant through the command line as a user runs it (`mote compile`, `mote partition`): exit status 0 or 2,
an error as one `mote: error:` line, and nothing from the model that acts on a terminal."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from mote.cli import main

TERMINAL_CONTROLS = ("\x1b", "\r", "\x00", "\x07", "\x08", "\x9b")


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as e:  # argparse
            status = e.code if isinstance(e.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def check_cli(data: bytes) -> str:
    """'ok', or what the user would have seen go wrong."""
    with tempfile.TemporaryDirectory(prefix="mote-fuzz-cli-") as tmp:
        model = Path(tmp) / "model.tflite"
        model.write_bytes(data)
        for argv in (["compile", str(model), "-o", str(Path(tmp) / "project")],
                     ["partition", str(model), "--accel", "qvanilla"]):
            status, out, err = run_cli(argv)
            command = f"mote {argv[0]}"
            if status not in (0, 2):
                return f"{command} exit {status}: {err.strip()[:160]}"
            if status == 2 and (len(err.splitlines()) != 1 or not err.startswith("mote: error: ")):
                return f"{command}: the error is not one 'mote: error:' line"
            if any(c in out + err for c in TERMINAL_CONTROLS):
                return f"{command}: terminal control characters in the output"
            if status == 2:
                return "ok"  # the model was refused; partition would say the same
    return "ok"
