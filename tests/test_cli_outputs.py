"""Nothing the user has is lost: every path the `mote` command writes refuses to replace what mote did
not write, and writes beside its target before renaming into place."""

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

from mote.outputs import PROJECT_MARK, safe_file_name

KWS = MLPERF_TINY / "kws_ref_model.tflite"
PRECIOUS = "the user's work\n"


def _precious(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "precious.txt"
    path.write_text(PRECIOUS)
    return path


def _mote_in(cwd: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env)


def test_compile_refuses_a_directory_it_did_not_write(tmp_path: Path) -> None:
    precious = _precious(tmp_path / "mine")
    assert_one_line_error(mote("compile", KWS, "-o", tmp_path / "mine"), "not write", PROJECT_MARK)
    assert precious.read_text() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # no temporary left behind


@pytest.mark.parametrize("target", [".", "..", "../.."])
def test_compile_never_replaces_the_working_directory_or_its_parents(tmp_path: Path, target: str) -> None:
    work = tmp_path / "a" / "b"
    precious = _precious(work)
    assert_one_line_error(_mote_in(work, "compile", KWS, "-o", target), "working directory")
    assert precious.read_text() == PRECIOUS


def test_compile_refuses_the_home_directory_even_when_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "compile", str(KWS), "-o", str(home)],
                          capture_output=True, text=True, env=env)
    assert_one_line_error(proc, "home directory")
    assert not any(home.iterdir())


@pytest.mark.parametrize("target", ["file", "/dev/null"])
def test_compile_refuses_a_path_that_is_not_a_directory(tmp_path: Path, target: str) -> None:
    precious = _precious(tmp_path)
    out = precious if target == "file" else Path(target)
    assert_one_line_error(mote("compile", KWS, "-o", out), "not a directory")
    assert precious.read_text() == PRECIOUS


def test_compile_replaces_its_own_project_and_creates_parents(tmp_path: Path) -> None:
    out = tmp_path / "new" / "parents" / "kws"
    assert mote("compile", KWS, "-o", out).returncode == 0
    assert (out / PROJECT_MARK).is_file()
    (out / "stale.c").write_text("left over")
    proc = mote("compile", KWS, "-o", out, "--kernels", "scalar")
    assert proc.returncode == 0, proc.stderr
    assert not (out / "stale.c").exists() and "mote_conv_blocked_s8(" in (out / "src" / "model.c").read_text()
    assert sorted(p.name for p in out.parent.iterdir()) == ["kws"]


def test_compile_into_an_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert mote("compile", KWS, "-o", tmp_path / "empty").returncode == 0
    assert (tmp_path / "empty" / "src" / "model.c").is_file()


def test_keep_refuses_a_file_and_keeps_the_project_inside_the_directory(tmp_path: Path) -> None:
    precious = _precious(tmp_path)
    assert_one_line_error(mote("run", "--keep", precious), "--keep", "not a directory")
    assert precious.read_text() == PRECIOUS
    proc = mote("run", "--keep", tmp_path / "kept", "--json")
    assert proc.returncode == 0, proc.stderr
    (project,) = (tmp_path / "kept").iterdir()
    assert (project / PROJECT_MARK).is_file() and (project / "src" / "model.c").is_file()


def test_keep_does_not_replace_a_directory_of_the_models_name(tmp_path: Path) -> None:
    first = mote("run", "--keep", tmp_path, "--json")
    assert first.returncode == 0, first.stderr
    (project,) = tmp_path.iterdir()
    for f in project.iterdir():  # turn it into the user's own directory of that name
        if f.is_file():
            f.unlink()
    precious = _precious(project)
    assert_one_line_error(mote("run", "--keep", tmp_path), "--keep", "not write")
    assert precious.read_text() == PRECIOUS


@pytest.mark.parametrize("name, expected", [("../../etc/x", "etc_x"), ("-rf", "rf"), ("..", "model"), ("/", "model"),
                                            (".hidden", "hidden"), ("a b/c", "a_b_c"), ("ok-1.2_x", "ok-1.2_x")])
def test_model_names_become_plain_file_names(name: str, expected: str) -> None:
    assert safe_file_name(name) == expected


@pytest.mark.parametrize("target", ["/dev/null", "dir", "missing/out.npz"])
def test_save_outputs_refuses_what_is_not_a_regular_file(tmp_path: Path, target: str) -> None:
    precious = _precious(tmp_path / "dir")
    out = Path(target) if target.startswith("/") else tmp_path / target
    proc = mote("run", "--save-outputs", out)
    assert_one_line_error(proc, "--save-outputs")
    assert precious.read_text() == PRECIOUS
    assert not (tmp_path / "missing").exists()


def test_save_outputs_replaces_a_file_atomically(tmp_path: Path) -> None:
    out = tmp_path / "out.npz"
    out.write_text("old")
    proc = mote("run", "--save-outputs", out, "--json")
    assert proc.returncode == 0, proc.stderr
    with np.load(out) as saved:
        assert saved.files == ["output"] and saved["output"].shape == (1, 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]


def test_explore_out_refuses_a_file_and_leaves_other_files_alone(tmp_path: Path) -> None:
    precious = _precious(tmp_path)
    assert_one_line_error(mote("explore", KWS, "--accel", "dla", "--out", precious), "--out", "not a directory")
    assert precious.read_text() == PRECIOUS
    proc = mote("explore", KWS, "--accel", "dla", "--sweep", "pes=64", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {tmp_path}/" in proc.stdout
    assert precious.read_text() == PRECIOUS
    assert {"results.csv", "results.json", "kws_ref_model_breakdown.png"} <= {p.name for p in tmp_path.iterdir()}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_quantize_output_must_be_a_regular_file_in_an_existing_directory(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read: the output is checked first")
    calib = tmp_path / "c.npz"
    np.savez(calib, x=np.zeros((1, 4), np.float32))
    precious = _precious(tmp_path / "d")
    for out in (Path("/dev/null"), precious.parent, tmp_path / "missing" / "q.onnx"):
        assert_one_line_error(mote("quantize", model, "--calib", calib, "-o", out), "-o")
    assert precious.read_text() == PRECIOUS


def test_accel_new_refuses_a_file_and_an_existing_package(tmp_path: Path) -> None:
    precious = _precious(tmp_path / "my_npu")
    assert_one_line_error(mote("accel", "new", "my_npu", "-o", tmp_path), "already exists")
    assert precious.read_text() == PRECIOUS
    assert_one_line_error(mote("accel", "new", "other_npu", "-o", precious), "precious.txt")
    assert precious.read_text() == PRECIOUS


def test_quantize_replaces_its_output_and_leaves_no_temporary(tmp_path: Path) -> None:
    from test_onnx_cli import float_cnn

    float_cnn(tmp_path / "f.onnx")
    np.savez(tmp_path / "cal.npz", x=np.random.default_rng(1).normal(0, 1, (4, 3, 8, 8)).astype(np.float32))
    (tmp_path / "q.onnx").write_text("an older result")
    proc = mote("quantize", tmp_path / "f.onnx", "--calib", tmp_path / "cal.npz", "-o", tmp_path / "q.onnx", "--json")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout)["output"] == str(tmp_path / "q.onnx")
    assert (tmp_path / "q.onnx").read_bytes()[:2] != b"an"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.npz", "f.onnx", "q.onnx"]
