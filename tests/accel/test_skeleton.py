"""`mote accel new`: the generated accelerator package works as written (its own test passes, it is
lint-clean), and an existing non-empty target or a bad name is refused without writing anything."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from mote.accel.skeleton import class_name, skeleton_files, write_skeleton
from mote.errors import MoteError

NAME = "toy_npu"  # not a module anywhere: the generated test imports it from its own directory


def test_generated_package_passes_its_own_test(tmp_path: Path) -> None:
    package = write_skeleton(NAME, tmp_path / "work")
    assert package == tmp_path / "work" / NAME
    assert sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.is_file()) == [
        "README.md", "__init__.py", "accelerator.py", f"tests/test_{NAME}.py"]
    assert "class ToyNpu(Accelerator):" in (package / "accelerator.py").read_text()
    assert [p.name for p in (tmp_path / "work").iterdir()] == [NAME]  # no temporary directory left behind
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 passed" in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_generated_package_is_lint_clean(tmp_path: Path) -> None:
    package = write_skeleton(NAME, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--line-length", "120",
                           "--select", "E,F,W,B,UP", str(package)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_refuses_a_non_empty_target(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()
    (tmp_path / NAME / "mine.py").write_text("# the author's work\n")
    with pytest.raises(MoteError) as error:
        write_skeleton(NAME, tmp_path)
    assert "\n" not in str(error.value) and "already exists" in str(error.value)
    assert [p.name for p in (tmp_path / NAME).iterdir()] == ["mine.py"]
    assert [p.name for p in tmp_path.iterdir()] == [NAME]  # nothing half-written beside it


def test_fills_an_empty_target(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()
    assert (write_skeleton(NAME, tmp_path) / "accelerator.py").is_file()


@pytest.mark.parametrize("name", ["my-npu", "2npu", "class", "", "numpy", "json"])
def test_refuses_a_bad_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(MoteError) as error:
        write_skeleton(name, tmp_path)
    assert "\n" not in str(error.value)
    assert list(tmp_path.iterdir()) == []


def test_class_names() -> None:
    assert [class_name(n) for n in ("my_npu", "npu", "fast_pool_unit", "_x")] == ["MyNpu", "Npu", "FastPoolUnit", "X"]
    files = skeleton_files("fast_pool_unit")
    assert "from .accelerator import FastPoolUnit, FastPoolUnitConfig" in files["__init__.py"]
    assert 'SPEC = "fast_pool_unit:FastPoolUnit"' in files["tests/test_fast_pool_unit.py"]


def test_cli(tmp_path: Path) -> None:
    def new() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mote.cli", "accel", "new", NAME, "-o", str(tmp_path)],
                              capture_output=True, text=True)

    proc = new()
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / NAME / "accelerator.py").is_file()
    proc = new()
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "already exists" in proc.stderr


def test_rtl_package_passes_its_own_test(tmp_path: Path) -> None:
    package = write_skeleton("toy_rtl", tmp_path / "work", rtl=True)
    assert sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.is_file()) == [
        "README.md", "__init__.py", "accelerator.py", "rtl/toy_rtl.sv", "tests/test_toy_rtl.py"]
    assert "class ToyRtl(RtlAccelerator, Accelerator):" in (package / "accelerator.py").read_text()
    assert "module toy_rtl (" in (package / "rtl" / "toy_rtl.sv").read_text()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "5 passed" in proc.stdout


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_rtl_package_is_lint_clean(tmp_path: Path) -> None:
    package = write_skeleton("toy_rtl", tmp_path, rtl=True)
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--line-length", "120",
                           "--select", "E,F,W,B,UP", str(package)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cli_writes_the_rtl_package(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mote.cli", "accel", "new", "toy_rtl", "--rtl", "-o", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "toy_rtl" / "rtl" / "toy_rtl.sv").is_file() and "toy_rtl.sv" in proc.stdout
