"""Every option of the `mote` command is checked: one line on stderr and exit status 2 for a bad value,
never a traceback; options that mean nothing for the target are refused with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY
from test_cli import assert_one_line_error, mote

from mote import pipeline
from mote.cli import main

KWS = MLPERF_TINY / "kws_ref_model.tflite"


def test_version() -> None:
    from importlib.metadata import version

    proc = mote("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"mote {version('mote')}"


@pytest.mark.parametrize("args, words", [
    (["run", "--seed", "-1"], ["--seed", "out of range"]),
    (["run", "--seed", "x"], ["--seed", "not a whole number"]),
    (["run", "--target", "mars"], ["--target", "mars"]),
    (["accel", "check", "qvanilla", "--trials", "0"], ["--trials"]),
    (["accel", "check", "qvanilla", "--trials", "-1"], ["--trials"]),
    (["run", "--target", "rv32", "--instruction-limit", "0"], ["--instruction-limit"]),
    (["run", "--target", "rv32", "--instruction-limit", "-5"], ["--instruction-limit"]),
    (["explore", str(KWS), "--accel", "dla", "--verify", "-3"], ["--verify"]),
    (["run", "--target", "rv32", "--opt", "-O3"], ["--opt", "-O3"]),
    (["run", "--ram", "lots"], ["--ram", "not a size"]),
    (["compile"], ["required"]),
    (["frobnicate"], ["frobnicate"]),
])
def test_argparse_errors_are_one_line(args: list[str], words: list[str]) -> None:
    assert_one_line_error(mote(*args), *words)


@pytest.mark.parametrize("args, words", [
    (["--core", "load=99999999999999999999"], ["--core", "load", "too large"]),
    (["--core", "nonsense=1"], ["--core", "nonsense"]),
    (["--ram", "0"], ["ram_bytes"]),
    (["--flash", "99999999999999999999GiB"], ["1 GiB"]),
    (["--stack", "0"], ["stack_bytes"]),
    (["--stack", "1MiB"], ["stack_bytes", "smaller than RAM"]),
    (["--accel", ":"], ["module:Class"]),
    (["--accel", "os.path:join"], ["no Accelerator subclass"]),
    (["--accel", "no_such_module_here:Npu"], ["cannot import", "no_such_module_here"]),
])
def test_rv32_option_values(args: list[str], words: list[str]) -> None:
    assert_one_line_error(mote("run", "--target", "rv32", *args), *words)


@pytest.mark.parametrize("source, words", [
    ("def broken(:\n", ["broken_npu.py line 1"]),
    ("import no_such_dependency_here\n", ["cannot import", "no_such_dependency_here"]),
    ("raise RuntimeError('boom at import')\n", ["RuntimeError", "boom at import"]),
    ("Npu = 3\n", ["no Accelerator subclass named 'Npu'"]),
])
def test_accel_modules_that_fail(tmp_path: Path, source: str, words: list[str]) -> None:
    (tmp_path / "broken_npu.py").write_text(source)
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "accel", "check", "broken_npu:Npu"], capture_output=True,
                          text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{Path.cwd()}"})
    assert_one_line_error(proc, "broken_npu", *words)


@pytest.mark.parametrize("flag, value, words", [
    ("--ram", "64KiB", ["--ram sizes the virtual MCU", "--target host"]),
    ("--flash", "1MiB", ["--flash"]), ("--stack", "4KiB", ["--stack"]),
    ("--cc", "zig", ["--cc", "system C compiler"]), ("--opt", "-Os", ["--opt"]),
    ("--instruction-limit", "1000", ["--instruction-limit"]), ("--core", "load=2", ["--core"]),
    ("--accel", "qvanilla", ["--accel", "--target rv32"]),
])
def test_rv32_options_refused_on_the_host(flag: str, value: str, words: list[str]) -> None:
    assert_one_line_error(mote("run", flag, value), *words)


@pytest.mark.parametrize("spelling", [["--opt", "-Os"], ["--opt=-Os"]])
def test_opt_os_as_the_readme_writes_it(spelling: list[str]) -> None:
    proc = mote("run", "--target", "rv32", "--cc", "zig", *spelling, "--json")
    assert proc.returncode == 0, proc.stderr
    assert "-Os" in json.loads(proc.stdout)["cflags"]


def test_explore_rejects_unknown_keys_and_bad_values_before_sweeping(tmp_path: Path) -> None:
    out = tmp_path / "results"
    assert_one_line_error(mote("explore", KWS, "--accel", "dla", "--sweep", "pes=64", "bogus=1", "--out", out),
                          "bogus", "pes, sram")
    assert_one_line_error(mote("explore", KWS, "--accel", "dla", "--sweep", "sram=lots", "--out", out), "sram", "lots")
    assert_one_line_error(mote("explore", KWS, "--accel", "dla", "--sweep", "pes=64,", "--out", out), "KEY=V1,V2")
    assert not out.exists()


def test_explore_fails_when_every_point_failed(tmp_path: Path) -> None:
    proc = mote("explore", KWS, "--accel", "dla", "--sweep", "sram=1,16", "--out", tmp_path, "--json")
    assert_one_line_error(proc, "all 2 points failed", "SRAM")
    assert len(json.loads(proc.stdout)) == 2 and (tmp_path / "results.json").is_file()


def test_explore_dask_address_that_is_not_one(tmp_path: Path) -> None:
    proc = mote("explore", KWS, "--accel", "dla", "--sweep", "pes=64", "--dask", "nonsense://x", "--out", tmp_path)
    assert_one_line_error(proc, "--dask nonsense://x")


def test_internal_errors_are_one_line_with_status_3(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("an invariant\nbroke")

    monkeypatch.setattr(pipeline, "compile_model", broken)
    monkeypatch.delenv("MOTE_DEBUG", raising=False)
    assert main(["compile", str(KWS), "-o", str(tmp_path / "out")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mote: internal error: RuntimeError: an invariant broke")
    assert "please report" in err and "Traceback" not in err
    monkeypatch.setenv("MOTE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="invariant"):
        main(["compile", str(KWS), "-o", str(tmp_path / "out")])


def test_numpy_warnings_stay_off_stderr(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    real = pipeline.compile_model

    def noisy(*args: object, **kwargs: object) -> object:
        np.float32(1e38) * np.float32(1e38)  # RuntimeWarning: overflow
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "compile_model", noisy)
    monkeypatch.delenv("MOTE_DEBUG", raising=False)
    import warnings
    with warnings.catch_warnings():
        assert main(["compile", str(KWS), "-o", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err == ""
