"""`mote compile --target/--accel`: the project a target builds, written without building it."""

from __future__ import annotations

import filecmp
import json
import subprocess
import sys
from pathlib import Path

from tests.filecheck import check

DIGITS = Path(__file__).parent.parent / "mote" / "models" / "digits_cnn.tflite"


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_rv32_project_is_the_one_run_builds(tmp_path: Path) -> None:
    """What `compile --target rv32` writes is, file for file, what `run --target rv32 --keep` builds from."""
    proc = mote("compile", DIGITS, "-o", tmp_path / "compiled", "--target", "rv32", "--accel", "dla", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["target"] == "rv32"
    run = mote("run", DIGITS, "--target", "rv32", "--accel", "dla", "--keep", tmp_path / "kept")
    assert run.returncode == 0, run.stderr
    compiled, kept = tmp_path / "compiled", tmp_path / "kept" / "digits_cnn"
    written = files(compiled)
    assert {"rv32/main.c", "rv32/mote_micro_s8.S", "rv32/link.ld", "src/model.c"} <= written
    assert not [f for f in written if f.startswith("examples/")]  # the host example is the host target's
    assert written <= files(kept)
    assert all(filecmp.cmp(compiled / f, kept / f, shallow=False) for f in written if f != ".mote-project")


def test_offloading_shows_in_the_printed_ir(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--target", "rv32", "--accel", "qvanilla", "--print-ir")
    assert proc.returncode == 0, proc.stderr
    check(proc.stdout, """
        CHECK: kernels for scalar cores
        CHECK: accel "conv1"
        CHECK-SAME: // qvanilla
        CHECK: requantize_s32 "conv1"
        CHECK-SAME: // cpu
    """)


def test_host_projects_take_no_accelerator(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--accel", "qvanilla")
    assert proc.returncode == 2 and not (tmp_path / "p").exists()
    assert proc.stderr.count("\n") == 1 and "--target rv32" in proc.stderr


def test_host_projects_default_to_portable_kernels(tmp_path: Path) -> None:
    proc = mote("compile", DIGITS, "-o", tmp_path / "p", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kernels"] == "vector"
    assert {"examples/host/main.c", "examples/host/Makefile"} <= files(tmp_path / "p")


def test_packed_sub_byte_weights_show_in_the_per_layer_rom(tmp_path: Path) -> None:
    """The same small CNN with int4 weights and with those values stored as int8: `compile --json`'s per-layer ROM
    of each layer with weights is smaller with int4, by the weights' half for the fully connected one."""
    from tests.ops.subbyte_models import small_cnn_int4

    rom = {}
    for kind, bits in (("int4", None), ("int8", 8)):
        model = tmp_path / f"{kind}.tflite"
        model.write_bytes(small_cnn_int4(dtype_bits=bits))
        proc = mote("compile", model, "-o", tmp_path / kind, "--json")
        assert proc.returncode == 0, proc.stderr
        layers = json.loads(proc.stdout)["per_layer"]
        rom[kind] = {layer["name"]: (layer["kernel"], layer["rom_bytes"]) for layer in layers}
    assert rom["int4"]["y4"] == ("mote_fully_connected_packed_s8", rom["int8"]["y4"][1] - 10 * 512 // 2)
    for layer in ("y1", "y2"):
        assert "packed" in rom["int4"][layer][0] and "packed" not in rom["int8"][layer][0]
        assert rom["int4"][layer][1] < rom["int8"][layer][1]
