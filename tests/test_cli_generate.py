"""`mote generate`: bad options and models that are not decoders give one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote.cli import main
from mote.pipeline import default_model


@pytest.mark.parametrize(("args", "message"), [
    (["--prompt", ""], "--prompt is empty"),
    (["--prompt", "x", "--tokens", "0"], "--tokens: 0 is out of range"),
    (["--prompt", "x", "--max-context", "0"], "--max-context: 0 is out of range"),
    (["--prompt", "x", "--target", "cortex"], "invalid choice: 'cortex'"),
    (["missing.onnx", "--prompt", "x"], "missing.onnx"),
    ([str(default_model()), "--prompt", "x"], "has no KV-cache attention layer"),
])
def test_bad_options_give_one_line_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        code = main(["generate", *args])
    except SystemExit as e:  # argparse's own errors
        code = e.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
