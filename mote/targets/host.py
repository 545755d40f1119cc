"""The host target: the generated library with an example beside it (examples/host/: a driver main.c, a Makefile
and a CMakeLists.txt that link the library), built with the system C compiler and run as a program on raw input
and output files, timed.

    from mote.targets.host import Host
    run = Host().run(compiled_model, project_dir, inputs)  # outputs and HostFigures
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mote.codegen.compile import CompiledModel
from mote.codegen.naming import Names
from mote.codegen.package import SRC, example_cmake
from mote.errors import BuildError
from mote.ir import Graph
from mote.ops.registry import Core
from mote.targets.base import Compiler, MemorySizes, Target, TargetFigures, TargetRun

WARNINGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
# Float kernels give TFLite Micro's bits only if each multiply and add rounds on its own: no fused
# multiply-add (GCC fuses across statements by default where the CPU has FMA), no fast-math.
FLOAT_SEMANTICS = ("-ffp-contract=off",)
SANITIZERS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")
EXAMPLE_DIR = "examples/host"


def find_cc() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise BuildError("no C compiler found for the host target; install gcc or clang, or set CC to one "
                         "(--cc picks the rv32 cross compiler only)")
    return cc


# A program that needs the compiler's AVX-512 VNNI intrinsics and the CPU's instructions.
VNNI_PROBE = r"""
#include <immintrin.h>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) static int probe(void) {
  const __m512i one = _mm512_set1_epi32(0x01010101);
  return _mm512_reduce_add_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), one, one)) == 64 ? 0 : 1;
}
int main(void) { return probe(); }
"""


@functools.cache
def host_core() -> Core:
    """The kernels for this machine: VNNI where the compiler has AVX-512 VNNI and the CPU runs it (the
    probe exits 0; a CPU without it faults), else the portable vectorizing ones."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return Core.VECTOR
    with tempfile.TemporaryDirectory(prefix="mote-vnni-") as tmp:
        source, binary = Path(tmp) / "probe.c", Path(tmp) / "probe"
        source.write_text(VNNI_PROBE)
        try:
            built = subprocess.run([find_cc(), "-O1", "-o", str(binary), str(source)], capture_output=True)
            ok = built.returncode == 0 and subprocess.run([str(binary)], capture_output=True).returncode == 0
        except (OSError, BuildError):
            ok = False
    return Core.VNNI if ok else Core.VECTOR


@dataclass
class HostBinary:
    path: Path
    graph: Graph
    cc: str
    flags: tuple[str, ...]

    def run(self, inputs: dict[str, np.ndarray], iterations: int = 0) -> tuple[dict[str, np.ndarray], float | None]:
        """Outputs for one set of inputs, and microseconds per inference when `iterations` > 0."""
        outputs, us = self.run_stream([inputs], iterations)
        return outputs[0], us

    def run_stream(self, frames: list[dict[str, np.ndarray]], iterations: int = 0
                   ) -> tuple[list[dict[str, np.ndarray]], float | None]:
        """Outputs for each set of inputs, run in order in one process (a model with state carries it
        from one to the next), and microseconds per inference when `iterations` > 0."""
        work = self.path.parent
        in_files = []
        for i, t in enumerate(self.graph.inputs):
            f = work / f"input{i}.bin"
            f.write_bytes(b"".join(np.ascontiguousarray(frame[t.name], dtype=t.dtype.np).tobytes() for frame in frames))
            in_files.append(str(f))
        out_files = [str(work / f"output{i}.bin") for i in range(len(self.graph.outputs))]
        cmd = [str(self.path), *in_files, *out_files, *([str(iterations)] if iterations else [])]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"the host binary failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        streams = {t.name: np.fromfile(f, dtype=t.dtype.np).reshape(len(frames), *t.shape)
                   for t, f in zip(self.graph.outputs, out_files)}
        us = None
        for line in proc.stdout.splitlines():
            if line.startswith("us_per_inference:"):
                us = float(line.split(":")[1])
        return [{name: s[k] for name, s in streams.items()} for k in range(len(frames))], us


def library_sources(model: CompiledModel) -> list[str]:
    """The library's C files, relative to the project directory."""
    return [f"{SRC}/{rel}" for rel in sorted(model.sources) if rel.endswith(".c")]


def host_program(model: CompiledModel) -> str:
    """The example program's path in the project: examples/host/NAME_host."""
    return f"{EXAMPLE_DIR}/{model.names.symbol('host')}"


def build_host(model: CompiledModel, project_dir: Path, opt: str = "-O2", sanitize: bool = False) -> HostBinary:
    """Write the project (the library, with the host example beside it) to `project_dir` and compile the example
    and the library's sources warning-free into `project_dir/examples/host/NAME_host`."""
    Host().write_project(model, project_dir)
    cc = find_cc()
    flags = (opt, *FLOAT_SEMANTICS, *WARNINGS, *(SANITIZERS if sanitize else ()))
    cmd = [cc, *flags, f"-I{SRC}", "-o", host_program(model), f"{EXAMPLE_DIR}/main.c", *library_sources(model)]
    proc = subprocess.run(cmd, cwd=project_dir, capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
        raise BuildError(f"building the generated C failed: {first}")
    return HostBinary(project_dir / host_program(model), model.graph, cc, flags)


_PRELUDE = """\
/* Host driver generated by mote: runs the model on raw input files and writes raw output files.
 * Usage: model_host INPUT_FILE... OUTPUT_FILE... [ITERATIONS]
 * An input file may hold several frames back to back, a stream for a model that keeps state: the
 * model runs once per frame, in order, and each output file gets a frame per run.
 * With ITERATIONS > 0 it also times about that many inferences, in up to TIMING_BATCHES short batches, and
 * prints "us_per_inference: <t>", the median batch's time per inference: a batch during which another
 * process had the core is an outlier that moves it little. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "@HEADER@"

static FILE *open_file(const char *path, const char *mode) {
  FILE *f = fopen(path, mode);
  if (!f) fprintf(stderr, "cannot open %s\\n", path);
  return f;
}

/* 1: a whole frame was read; 0: the file had ended; -1: it ends inside the frame. */
static int read_frame(FILE *f, void *data, size_t bytes) {
  size_t n = fread(data, 1, bytes, f);
  return n == bytes ? 1 : (n == 0 ? 0 : -1);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

#define TIMING_BATCHES 1000

/* The middle of n values (sorted in place). */
static double median(double *v, int n) {
  for (int i = 1; i < n; ++i) {
    const double x = v[i];
    int j = i;
    for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
    v[j] = x;
  }
  return v[n / 2];
}
"""


def host_main(graph: Graph, names: Names | None = None) -> str:
    """main.c: runs the model on each frame of raw input files, writes raw output files, optionally times it; it
    calls the library by its `names`."""
    names = names or Names()
    text = names.model_text(_host_main(graph)).replace("@HEADER@", names.header)
    return text.replace("Usage: model_host", f"Usage: {names.symbol('host')}")


def _host_main(graph: Graph) -> str:
    n_in, n_out = len(graph.inputs), len(graph.outputs)
    buffers = [f"static {t.dtype.c_type} input{i}[MODEL_INPUT{i}_SIZE];" for i, t in enumerate(graph.inputs)]
    buffers += [f"static {t.dtype.c_type} output{i}[MODEL_OUTPUT{i}_SIZE];" for i, t in enumerate(graph.outputs)]
    files = [f"  FILE *{name}_file = open_file(argv[{1 + k}], \"{mode}\");\n  if (!{name}_file) return 1;"
             for k, (name, mode) in enumerate([*((f"input{i}", "rb") for i in range(n_in)),
                                               *((f"output{i}", "wb") for i in range(n_out))])]
    # the first input's file decides where the stream ends; every other input must have the frame too
    end = ("    const int got = read_frame(input0_file, input0, MODEL_INPUT0_BYTES);\n"
           "    if (got == 0 && frames > 0) break;" if n_in else "    const int got = frames > 0 ? 0 : 1;\n"
           "    if (got == 0) break;")
    reads = [f"    if ({'got' if i == 0 else f'read_frame(input{i}_file, input{i}, MODEL_INPUT{i}_BYTES)'} != 1) {{\n"
             f"      fprintf(stderr, \"%s: not a whole number of %d-byte frames\\n\", argv[{1 + i}], "
             f"MODEL_INPUT{i}_BYTES);\n      return 1;\n    }}" for i in range(n_in)]
    writes = [f"    if (fwrite(output{i}, 1, MODEL_OUTPUT{i}_BYTES, output{i}_file) != MODEL_OUTPUT{i}_BYTES) {{\n"
              f"      fprintf(stderr, \"cannot write %s\\n\", argv[{1 + n_in + i}]);\n      return 1;\n    }}"
              for i in range(n_out)]
    closes = [f"  if (fclose(output{i}_file) != 0) {{\n    fprintf(stderr, \"cannot write %s\\n\", "
              f"argv[{1 + n_in + i}]);\n    return 1;\n  }}" for i in range(n_out)]
    args = ", ".join([f"input{i}" for i in range(n_in)] + [f"output{i}" for i in range(n_out)])
    return "\n".join([
        _PRELUDE, *buffers, "",
        "int main(int argc, char **argv) {",
        f"  if (argc < {1 + n_in + n_out}) {{",
        '    fprintf(stderr, "usage: %s INPUT_FILE... OUTPUT_FILE... [ITERATIONS]\\n", argv[0]);',
        "    return 2;", "  }",
        *files,
        "  for (long frames = 0;; ++frames) {", end, *reads,
        f"    if (model_run({args}) != 0) {{", '      fprintf(stderr, "model_run failed\\n");', "      return 1;",
        "    }", *writes, "  }",
        *[f"  fclose(input{i}_file);" for i in range(n_in)], *closes,
        f"  long iterations = argc > {1 + n_in + n_out} ? strtol(argv[{1 + n_in + n_out}], NULL, 10) : 0;",
        "  if (iterations > 0) {",
        "    const int batches = iterations < TIMING_BATCHES ? (int)iterations : TIMING_BATCHES;",
        "    const long batch = iterations / batches;",
        "    static double per_inference[TIMING_BATCHES];",
        "    for (int b = 0; b < batches; ++b) {",
        "      const double start = now_us();",
        f"      for (long i = 0; i < batch; ++i) model_run({args});",
        "      per_inference[b] = (now_us() - start) / (double)batch;",
        "    }",
        '    printf("us_per_inference: %.3f\\n", median(per_inference, batches));',
        "  }",
        "  return 0;", "}", ""])


@dataclass(frozen=True)
class HostFigures(TargetFigures):
    """A host run: the time per inference and how the program was built."""

    us_per_inference: float | None
    cc: str
    cflags: str

    def to_json(self) -> dict[str, Any]:
        return {"host_us_per_inference": self.us_per_inference, "cc": self.cc, "cflags": self.cflags}


class Host(Target):
    """This machine: the system C compiler, the kernels for its CPU (mote.targets.host.host_core)."""

    name = "host"
    isa = platform.machine().lower() or "unknown"

    def __init__(self, opt: str = "-O2") -> None:
        self.opt = opt

    def core(self) -> Core:
        return host_core()

    def project_core(self) -> Core:
        """Vector kernels: a project may be built on another machine of this kind, whose CPU may lack VNNI."""
        return Core.VECTOR

    def compiler(self) -> Compiler:
        return Compiler(find_cc(), (self.opt, *WARNINGS))

    def memory(self) -> MemorySizes:
        return MemorySizes()  # the operating system's

    def project_files(self, model: CompiledModel) -> dict[str, str]:
        """examples/host/: the driver, a Makefile and a CMakeLists.txt; both build files link the library's
        sources from ../../src."""
        makefile = resources.files("mote.targets").joinpath("host.mk").read_text()
        return {f"{EXAMPLE_DIR}/main.c": host_main(model.graph, model.names),
                f"{EXAMPLE_DIR}/Makefile": makefile.replace("PROGRAM", model.names.symbol("host")),
                f"{EXAMPLE_DIR}/CMakeLists.txt": example_cmake(model.names)}

    def build(self, model: CompiledModel, project_dir: Path) -> HostBinary:
        return build_host(model, project_dir, self.opt)

    def run(self, model: CompiledModel, project_dir: Path, inputs: dict[str, np.ndarray]) -> TargetRun:
        binary = self.build(model, project_dir)
        outputs, _ = binary.run(inputs)
        _, us = binary.run(inputs, iterations=_timing_iterations(model.macs))
        return TargetRun(outputs, HostFigures(us, binary.cc, " ".join(binary.flags)))

    def run_stream(self, model: CompiledModel, project_dir: Path, frames: list[dict[str, np.ndarray]]
                   ) -> list[TargetRun]:
        """The frames through one process, then timed (the time per inference the same for every call)."""
        binary = self.build(model, project_dir)
        outputs, us = binary.run_stream(frames, iterations=_timing_iterations(model.macs))
        figures = HostFigures(us, binary.cc, " ".join(binary.flags))
        return [TargetRun(out, figures) for out in outputs]

def _timing_iterations(macs: int) -> int:
    """About a quarter second of work at ~1 GMAC/s, within sane bounds."""
    return int(min(max(2.5e8 / max(macs, 1), 3), 10_000))
