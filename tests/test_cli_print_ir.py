"""`mote compile --print-ir`: the graph as compiled, after the summary (and as "ir" in the JSON)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.filecheck import check

DIGITS = Path(__file__).parent.parent / "mote" / "models" / "digits_cnn.tflite"


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def test_print_ir_follows_the_summary(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--kernels", "scalar", "--print-ir")
    assert proc.returncode == 0, proc.stderr
    check(proc.stdout, """
        CHECK: wrote
        CHECK: graph "digits_cnn" {
        CHECK-NEXT: // arena 968 B
        CHECK-SAME: kernels for scalar cores
        CHECK: #1 conv2d "conv1"
        CHECK-SAME: // cpu mote_conv_plane_s8 scratch=
        CHECK: output %output
        CHECK-NEXT: }
    """)


def test_print_ir_in_json(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--print-ir", "--json")
    assert proc.returncode == 0, proc.stderr
    ir = json.loads(proc.stdout)["ir"]
    assert ir.startswith('graph "digits_cnn" {\n') and "mote_conv_im2col_s8" in ir


def test_without_print_ir_there_is_no_graph(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p")
    assert proc.returncode == 0, proc.stderr
    assert "graph " not in proc.stdout
