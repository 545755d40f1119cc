"""`mote ops`: the supported-operator table comes from the registry, and README shows it as it is."""

from __future__ import annotations

import subprocess
import sys

from mote.cli_ops import markdown, operator_rows
from mote.ops import OPS
from tests.conftest import REPO


def test_readme_table_is_the_registry_table() -> None:
    readme = (REPO / "README.md").read_text()
    between = readme.split("<!-- ops:begin -->\n", 1)[1].split("<!-- ops:end -->", 1)[0]
    assert between == markdown(), "README's operator table is stale: regenerate it with `mote ops --markdown`"


def test_every_builtin_of_the_registry_is_a_row() -> None:
    builtins = {b for op in OPS.values() for b in op.tflite}
    rows = operator_rows()
    assert {b for b, _, _ in rows} == builtins and len(rows) == len(builtins)
    assert ("CONV_2D", "conv2d", "int8, int16, float32") in rows


def test_the_command_prints_the_table() -> None:
    out = subprocess.run([sys.executable, "-m", "mote.cli", "ops"], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == f"{len(operator_rows())} operators"
    assert any(line.startswith("SOFTMAX") and "float32" in line for line in out.splitlines())
