"""Memory placement (mote.codegen.placement, docs/library.md): an arena the caller lends, checked for size and
alignment; the section and alignment macros reach the object file; the library builds with no C library's headers
(MOTE_NO_LIBC) and then calls no function it does not define."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core

DIGITS = Path(__file__).parent.parent.parent / "mote" / "models" / "digits_cnn.tflite"
WARN = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-std=c99"]

# Lends the arena after checking that a run without one, a misaligned and a short arena are refused, then runs the
# model on the raw input file argv[1] and writes the raw output to argv[2].
MAIN = r"""
#include <stdio.h>
#include "dig.h"
static union { int8_t bytes[DIG_ARENA_BYTES + 64]; int64_t align; } memory;
int main(int argc, char **argv) {
  static int8_t in[DIG_INPUT0_BYTES], out[DIG_OUTPUT0_BYTES];
  FILE *f;
  if (argc != 3) return 9;
  if (dig_run((const void *)in, (void *)out) == 0) return 10;
  if (dig_set_arena(memory.bytes + 1, DIG_ARENA_BYTES) == 0) return 11;
  if (dig_set_arena(memory.bytes, DIG_ARENA_BYTES - 1) == 0) return 12;
  if (dig_set_arena(NULL, DIG_ARENA_BYTES) == 0) return 13;
  if (dig_set_arena(memory.bytes + 8, DIG_ARENA_BYTES) != 0) return 14;
  f = fopen(argv[1], "rb");
  if (!f || fread(in, 1, sizeof in, f) != sizeof in) return 15;
  fclose(f);
  if (dig_run((const void *)in, (void *)out) != 0) return 16;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, 1, sizeof out, f) != sizeof out) return 17;
  fclose(f);
  return 0;
}
"""


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    data = DIGITS.read_bytes()
    out = tmp_path_factory.mktemp("placement") / "dig"
    compile_graph(load_tflite(data, "digits"), core=Core.SCALAR, name="dig").write(out)
    return out, data


def sources(root: Path) -> list[str]:
    return sorted(str(p) for p in (root / "src").rglob("*.c"))


def test_an_arena_the_caller_lends_is_checked_and_runs_bit_exact(digits: tuple[Path, bytes], tmp_path: Path) -> None:
    root, data = digits
    (tmp_path / "main.c").write_text(MAIN)
    program = tmp_path / "prog"
    subprocess.run(["gcc", *WARN, "-O1", "-DDIG_ARENA_EXTERNAL", f"-I{root / 'src'}", str(tmp_path / "main.c"),
                    *sources(root), "-o", str(program)], check=True, capture_output=True, text=True)
    text = subprocess.run(["nm", str(program)], capture_output=True, text=True, check=True).stdout
    assert " arena_base" in text and " arena\n" not in text  # no static arena in the program
    graph = load_tflite(data, "digits")
    (x,), (y,) = graph.inputs, graph.outputs
    inputs = random_inputs(graph, 3)
    (tmp_path / "in.bin").write_bytes(np.ascontiguousarray(inputs[x.name], dtype=x.dtype.np).tobytes())
    run = subprocess.run([str(program), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")], capture_output=True)
    assert run.returncode == 0, f"the program stopped with {run.returncode} (see MAIN for what each code means)"
    got = {y.name: np.fromfile(tmp_path / "out.bin", dtype=y.dtype.np).reshape(y.shape)}
    assert_same(got, tflm_outputs(data, graph, inputs), "the arena the caller lends")


def _section(obj: Path, name: str) -> tuple[int, int]:
    """(size, alignment) of section `name` of an object file, from readelf."""
    lines = subprocess.run(["readelf", "-SW", str(obj)], capture_output=True, text=True, check=True).stdout
    for line in lines.splitlines():
        fields = line.replace("[ ", "[").split()
        if name in fields:
            at = fields.index(name)
            return int(fields[at + 4], 16), int(fields[-1])
    raise AssertionError(f"no section {name} in {obj.name}")


def test_section_and_alignment_macros_place_arena_and_weights(digits: tuple[Path, bytes], tmp_path: Path) -> None:
    """The shared MOTE_ macros place both; the library's own DIG_ARENA_ALIGN wins over MOTE_ARENA_ALIGN."""
    root, _ = digits
    flags = ["-DMOTE_ARENA_SECTION=__attribute__((section(\".ml_arena\")))",
             "-DMOTE_WEIGHTS_SECTION=__attribute__((section(\".ml_weights\")))",
             "-DMOTE_ARENA_ALIGN=16", "-DDIG_ARENA_ALIGN=256", "-DMOTE_WEIGHTS_ALIGN=32"]
    for stem in ("dig", "dig_weights"):
        subprocess.run(["gcc", *WARN, "-O2", *flags, f"-I{root / 'src'}", "-c", str(root / "src" / f"{stem}.c"),
                        "-o", str(tmp_path / f"{stem}.o")], check=True, capture_output=True, text=True)
    arena_bytes = int(next(line.split()[2] for line in (root / "src" / "dig.h").read_text().splitlines()
                           if line.startswith("#define DIG_ARENA_BYTES ")))
    size, align = _section(tmp_path / "dig.o", ".ml_arena")
    assert size >= arena_bytes and align == 256
    weights = (root / "src" / "dig_weights.c").read_text().count("const ")
    size, align = _section(tmp_path / "dig_weights.o", ".ml_weights")
    assert weights > 1 and size > 0 and align == 32
    # by default: no section of either name
    subprocess.run(["gcc", *WARN, "-O2", f"-I{root / 'src'}", "-c", str(root / "src" / "dig.c"),
                    "-o", str(tmp_path / "plain.o")], check=True, capture_output=True, text=True)
    with pytest.raises(AssertionError):
        _section(tmp_path / "plain.o", ".ml_arena")


@pytest.mark.parametrize("model", ["digits", "ad", "kws"])
def test_the_library_builds_without_a_c_library(model: str, tmp_path: Path) -> None:
    """-ffreestanding -nostdinc with only the compiler's own freestanding headers (stddef.h, stdint.h, stdbool.h):
    every source compiles, and the objects together define every function they call."""
    path = {"digits": DIGITS, "ad": MLPERF_TINY / "ad01_int8.tflite",
            "kws": MLPERF_TINY / "kws_ref_model.tflite"}[model]
    root = tmp_path / model
    compile_graph(load_tflite(path.read_bytes(), model), core=Core.SCALAR, name=model).write(root)
    own = subprocess.run(["gcc", "-print-file-name=include"], capture_output=True, text=True, check=True).stdout.strip()
    objects = []
    for i, source in enumerate(sources(root)):
        objects.append(str(tmp_path / f"{i}.o"))
        made = subprocess.run(["gcc", *WARN, "-O2", "-fno-pic", "-ffreestanding", "-nostdinc",
                               "-isystem", own, "-DMOTE_NO_LIBC",
                               f"-I{root / 'src'}", "-c", source, "-o", objects[-1]], capture_output=True, text=True)
        assert made.returncode == 0, made.stderr[-2000:]
    symbols = subprocess.run(["nm", *objects], capture_output=True, text=True, check=True).stdout.splitlines()
    undefined = {s.split()[-1] for s in symbols if s.strip().startswith("U ")}
    defined = {s.split()[-1] for s in symbols if len(s.split()) == 3 and s.split()[1] in "TDRBC"}
    assert undefined <= defined, sorted(undefined - defined)
    assert f"{model}_mote_memcpy" in defined or f"{model}_mote_memset" in defined
