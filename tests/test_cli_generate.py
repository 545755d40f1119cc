"""`mote generate`: bad options and models that are not decoders give one-line errors (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mote.cli import main
from mote.cli_generate import bundled_language_model
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


def test_the_bundled_model_gives_the_same_tokens_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled language model: the same greedy tokens on the host, on the rv32 VP and in the reference
    interpreter (each run checks its tokens against the reference; exit status 1 if they differ)."""
    import json

    reports = {}
    for target in ("host", "rv32"):
        assert main(["generate", "--prompt", "The ", "--tokens", "6", "--target", target, "--json"]) == 0
        reports[target] = json.loads(capsys.readouterr().out)
    host, rv32 = reports["host"], reports["rv32"]
    assert host["matches_reference"] and rv32["matches_reference"] and host["tokens"] == rv32["tokens"]
    assert host["text"] == bytes(host["tokens"]).decode("utf-8", "replace") and len(host["tokens"]) == 6
    assert host["host_us_per_token"] > 0 and rv32["instructions_per_token"] > 0 and rv32["cycles_per_token"] > 0
    assert host["macs_per_token"] == rv32["macs_per_token"] > 1_000_000


def test_compile_with_a_maximum_context(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`mote compile --max-context`: the bundled model's cache as state for that many tokens, the API in model.h;
    a cache over rv32's RAM is refused in one line."""
    import json

    assert main(["compile", str(bundled_language_model()), "--max-context", "64", "-o", str(tmp_path / "p"),
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    cache = 2 * 4 * 4 * 64 * 32  # keys and values: 4 layers of 4 heads, 64 tokens of 32 bytes
    assert cache < report["state_bytes"] <= cache + 4 * 8  # and each layer's position, aligned
    header = (tmp_path / "p" / "src" / "model.h").read_text()
    assert "#define MODEL_MAX_CONTEXT 64" in header and "model_step(int32_t token)" in header
    assert main(["compile", str(bundled_language_model()), "--max-context", "4000", "--target", "rv32",
                 "-o", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err.strip()
    assert "at a maximum context of 4000 tokens, over the budget" in err and len(err.splitlines()) == 1
