"""`mote compile --explain`: the kernel each layer got and why the faster ones declined."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DIGITS = Path(__file__).parent.parent / "mote" / "models" / "digits_cnn.tflite"


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def test_explain_json_lists_each_layer_and_the_declined_kernels(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--kernels", "scalar", "--explain", "--json")
    assert proc.returncode == 0, proc.stderr
    explain = {layer["name"]: layer for layer in json.loads(proc.stdout)["explain"]}
    assert explain["conv1"] == {**explain["conv1"], "kernel": "mote_conv_plane_s8", "declined": []}  # one channel in
    assert explain["conv2"]["kernel"] == "mote_conv_ring_s8"
    assert explain["conv2"]["declined"] == [{"kernel": "mote_conv_plane_s8", "reason": "input channels != 1"}]


def test_explain_text(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--kernels", "scalar", "--explain")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "'conv2': mote_conv_ring_s8" in line)
    assert lines[at + 1].strip() == "not mote_conv_plane_s8: input channels != 1"


def test_without_explain_no_explanation(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "explain" not in json.loads(proc.stdout)
