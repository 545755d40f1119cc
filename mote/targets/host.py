"""The host target: build the generated project with the system C compiler and run it."""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mote.codegen.compile import CompiledModel
from mote.errors import BuildError
from mote.ir import Graph
from mote.ops.registry import Core

WARNINGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
SANITIZERS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")


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
        work = self.path.parent
        in_files = []
        for i, t in enumerate(self.graph.inputs):
            f = work / f"input{i}.bin"
            f.write_bytes(np.ascontiguousarray(inputs[t.name], dtype=t.dtype.np).tobytes())
            in_files.append(str(f))
        out_files = [str(work / f"output{i}.bin") for i in range(len(self.graph.outputs))]
        cmd = [str(self.path), *in_files, *out_files, *([str(iterations)] if iterations else [])]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"the host binary failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        outputs = {t.name: np.fromfile(f, dtype=t.dtype.np).reshape(t.shape)
                   for t, f in zip(self.graph.outputs, out_files)}
        us = None
        for line in proc.stdout.splitlines():
            if line.startswith("us_per_inference:"):
                us = float(line.split(":")[1])
        return outputs, us


def build_host(model: CompiledModel, project_dir: Path, opt: str = "-O2", sanitize: bool = False) -> HostBinary:
    """Write the project to `project_dir` and compile it warning-free into `project_dir/model_host`."""
    model.write(project_dir)
    cc = find_cc()
    flags = (opt, *WARNINGS, *(SANITIZERS if sanitize else ()))
    sources = ["main.c", "model.c", "weights.c", *sorted(str(p.relative_to(project_dir))
                                                          for p in (project_dir / "mote").glob("*.c"))]
    cmd = [cc, *flags, "-Imote", "-o", "model_host", *sources]
    proc = subprocess.run(cmd, cwd=project_dir, capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:300])
        raise BuildError(f"building the generated C failed: {first}")
    return HostBinary(project_dir / "model_host", model.graph, cc, flags)
