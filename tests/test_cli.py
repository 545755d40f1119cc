"""The `mote` command end to end: JSON report, inputs and outputs files, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY

from mote.frontend.tflite_writer import ModelBuilder

JSON_KEYS = {"model", "target", "bit_exact", "mismatches", "arena_bytes", "arena_lower_bound_bytes",
             "weights_bytes", "macs", "host_us_per_inference", "layers"}


def mote(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mote.cli", *map(str, args)], capture_output=True, text=True)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mote: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0]


def test_run_default_model_json() -> None:
    proc = mote("run", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert JSON_KEYS <= report.keys()
    assert report["bit_exact"] is True and report["mismatches"] == 0
    assert report["target"] == "host"
    assert report["host_us_per_inference"] > 0
    assert sum(layer["macs"] for layer in report["layers"]) == report["macs"] > 0


def test_run_with_input_file_and_saved_outputs(tmp_path: Path) -> None:
    x = np.random.default_rng(1).integers(-128, 128, (1, 640), dtype=np.int8)
    np.save(tmp_path / "x.npy", x)
    proc = mote("run", MLPERF_TINY / "ad01_int8.tflite", "--input", tmp_path / "x.npy",
                "--save-outputs", tmp_path / "out.npz", "--json")
    assert proc.returncode == 0, proc.stderr
    saved = np.load(tmp_path / "out.npz")
    assert len(saved.files) == 1 and saved[saved.files[0]].shape == (1, 640)


def test_compile_writes_a_project(tmp_path: Path) -> None:
    proc = mote("compile", MLPERF_TINY / "kws_ref_model.tflite", "-o", tmp_path / "kws")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in (tmp_path / "kws" / "src").iterdir()}
    assert {"model.h", "model.c", "model_weights.h", "model_weights.c", "mote"} <= names
    assert {"main.c", "Makefile"} <= {p.name for p in (tmp_path / "kws" / "examples" / "host").iterdir()}
    model_c = (tmp_path / "kws" / "src" / "model.c").read_text()
    assert "malloc" not in model_c and "/* layer 0: conv2d" in model_c


def test_compile_for_a_scalar_core_builds_and_matches(tmp_path: Path) -> None:
    """`--kernels scalar` writes the register-blocked kernels; the project builds and runs bit-exact on
    the host (the rv32 target builds the same kernels)."""
    proc = mote("compile", MLPERF_TINY / "kws_ref_model.tflite", "-o", tmp_path / "kws", "--kernels", "scalar")
    assert proc.returncode == 0, proc.stderr
    model_c = (tmp_path / "kws" / "src" / "model.c").read_text()
    assert "mote_conv_blocked_s8(" in model_c and "mote_depthwise_conv_band_single_s8(" in model_c
    from mote.codegen.compile import compile_graph
    from mote.frontend import load
    from mote.inputs import random_inputs
    from mote.ops.registry import Core
    from mote.reference import interpret
    from mote.targets.host import build_host
    graph = load(MLPERF_TINY / "kws_ref_model.tflite")
    vector = compile_graph(graph)
    assert vector.for_core(Core.VECTOR) is vector
    scalar = vector.for_core(Core.SCALAR)
    assert scalar.core is Core.SCALAR and {layer.kernel for layer in scalar.layers} >= {
        "mote_conv_blocked_s8", "mote_depthwise_conv_band_single_s8"}
    inputs = random_inputs(graph, 3)
    outputs, _ = build_host(scalar, tmp_path / "host").run(inputs)
    for name, want in interpret(graph, inputs).items():
        assert np.array_equal(outputs[name], want)


def _model_with(op: str, dtype: str = "int8", **options: object) -> bytes:
    b = ModelBuilder()
    q = {"scale": 0.1, "zero_point": 0} if dtype == "int8" else {}
    x = b.tensor("x", (1, 8), dtype, **q)
    y = b.tensor("y", (1, 8), dtype, **q)
    b.op(op, [x], [y], **options)
    return b.build([x], [y])


def test_unsupported_operator(tmp_path: Path) -> None:
    (tmp_path / "rnn.tflite").write_bytes(_model_with("RNN"))
    proc = mote("compile", tmp_path / "rnn.tflite", "-o", tmp_path / "out")
    assert_one_line_error(proc, "RNN", "node 0", "CONV_2D", "SOFTMAX")
    assert not (tmp_path / "out").exists()


def test_float_model_runs_and_matches_tflite_micro(tmp_path: Path) -> None:
    (tmp_path / "float.tflite").write_bytes(_model_with("RELU", dtype="float32"))
    proc = mote("run", tmp_path / "float.tflite", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["bit_exact"] and report["tflite_micro"]["mismatches"] == 0


def test_an_op_without_the_models_dtype_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "abs.tflite").write_bytes(_model_with("SQRT"))  # an int8 SQRT: mote computes SQRT in float32 only
    assert_one_line_error(mote("compile", tmp_path / "abs.tflite", "-o", tmp_path / "out"), "int8", "float32")


@pytest.mark.parametrize("content", [b"", b"not a model at all", None])
def test_truncated_or_non_model_file(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "bad.tflite"
    path.write_bytes(content if content is not None else (MLPERF_TINY / "kws_ref_model.tflite").read_bytes()[:2000])
    proc = mote("compile", path, "-o", tmp_path / "out")
    assert_one_line_error(proc, "bad")
    assert not (tmp_path / "out").exists()


def test_missing_file(tmp_path: Path) -> None:
    assert_one_line_error(mote("run", tmp_path / "nope.tflite"), "nope.tflite")


RV32_KEYS = {"instructions", "cycles", "rom_bytes", "ram_bytes", "stack_bytes", "sim_seconds", "sim_mips", "cc",
             "cflags", "instructions_per_mac"}


def test_run_rv32_json() -> None:
    proc = mote("run", MLPERF_TINY / "kws_ref_model.tflite", "--target", "rv32", "--cc", "zig", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (JSON_KEYS - {"host_us_per_inference"}) | RV32_KEYS <= report.keys()
    assert report["bit_exact"] is True and report["cc"].startswith("zig")
    profiled = [layer for layer in report["layers"] if "instructions" in layer]
    assert len(profiled) == 12  # every layer but the in-place reshape
    assert sum(layer["instructions"] for layer in profiled) <= report["instructions"]
    assert report["cycles"] > report["instructions"]


def test_profile_table() -> None:
    proc = mote("profile", MLPERF_TINY / "ad01_int8.tflite", "--cc", "zig")
    assert proc.returncode == 0, proc.stderr
    for word in ("instructions", "cycles", "share", "instr/MAC", "mote_fully_connected_row_pairs_s8", "bit-exact"):
        assert word in proc.stdout


def test_runaway_firmware_stops_at_the_instruction_limit() -> None:
    proc = mote("run", MLPERF_TINY / "ad01_int8.tflite", "--target", "rv32", "--cc", "zig",
                "--instruction-limit", "100000")
    assert_one_line_error(proc, "instruction limit", "pc 0x", "layer")


def test_arena_larger_than_ram(tmp_path: Path) -> None:
    from mote.codegen.compile import compile_graph
    from mote.frontend import load
    from mote.ops.registry import Core
    arena = compile_graph(load(MLPERF_TINY / "vww_96_int8.tflite"), core=Core.SCALAR).plan.size
    proc = mote("run", MLPERF_TINY / "vww_96_int8.tflite", "--target", "rv32", "--cc", "zig", "--ram", "48KiB",
                "--keep", tmp_path)
    assert_one_line_error(proc, "needs at least", f"arena {arena} ")
    assert not any(tmp_path.iterdir())
