"""`mote firmware`: two MLPerf Tiny models in one rv32 firmware from the command line, each library in its own
namespace and directory, run once on the virtual platform and bit-exact with the reference interpreter; the
errors a user can make, one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import MLPERF_TINY

KWS, AD = MLPERF_TINY / "kws_ref_model.tflite", MLPERF_TINY / "ad01_int8.tflite"


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def test_two_models_in_one_firmware_run_bit_exact(tmp_path: Path) -> None:
    out = tmp_path / "fw"
    proc = mote("firmware", KWS, AD, "--name", "kws,ad", "-o", out, "--run", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [m["name"] for m in report["models"]] == ["kws", "ad"]
    assert all(m["mismatches"] == 0 and m["instructions"] > m["macs"] > 0 for m in report["models"])
    assert (out / "firmware.elf").is_file() and (out / ".mote-project").is_file()
    header = (out / "kws" / "src" / "kws.h").read_text()
    assert "kws_run(" in header and "KWS_ARENA_BYTES" in header and "ad_run" not in header
    assert "ad_run(" in (out / "ad" / "src" / "ad.h").read_text()
    assert 'include "kws.h"' in (out / "rv32" / "main.c").read_text()


def test_one_model_twice_under_two_names(tmp_path: Path) -> None:
    """Without --run it writes and links only; the same model twice links (its kernels in two namespaces) and,
    run with another seed, both copies match the reference interpreter."""
    out = tmp_path / "fw"
    proc = mote("firmware", AD, AD, "--name", "first,second", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "first:" in proc.stdout and "instructions" not in proc.stdout and (out / "firmware.elf").is_file()
    proc = mote("firmware", AD, AD, "--name", "first,second", "-o", out, "--run", "--seed", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    first, second = json.loads(proc.stdout)["models"]
    assert first["mismatches"] == second["mismatches"] == 0 and first["instructions"] == second["instructions"]


def test_user_errors_are_one_line(tmp_path: Path) -> None:
    for args, words in ((("--name", "kws"), "1 names for 2 models"), (("--name", "kws,KWS"), "apart from case"),
                        (("--name", "kws,2ad"), "not usable as a C prefix")):
        proc = mote("firmware", KWS, AD, *args, "-o", tmp_path / "fw")
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert not (tmp_path / "fw").exists()
