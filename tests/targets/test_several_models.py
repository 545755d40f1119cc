"""Two different models, each compiled with a name of its own, linked into one host program and into one rv32
firmware; both run, both bit-exact with the TFLite Micro interpreter."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import MLPERF_TINY, assert_same, tflm_outputs

from mote import pipeline
from mote.accel import find_accelerator
from mote.codegen.compile import CompiledModel, compile_graph
from mote.frontend import load
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import FLOAT_SEMANTICS, WARNINGS, find_cc, library_sources
from mote.targets.rv32 import Rv32Config, build_rv32
from mote.targets.rv32.several import build_several, run_several

MODELS = {"kws": MLPERF_TINY / "kws_ref_model.tflite", "ad": MLPERF_TINY / "ad01_int8.tflite"}


@pytest.fixture(scope="module")
def models() -> dict[str, tuple[bytes, object]]:
    return {name: (path.read_bytes(), load_tflite(path.read_bytes(), name)) for name, path in MODELS.items()}


def expected(models: dict, seed: int) -> tuple[list[dict], list[dict]]:
    """Each model's inputs, and its outputs from the TFLite Micro interpreter (mote's reference agrees)."""
    inputs, outputs = [], []
    for data, graph in models.values():
        x = random_inputs(graph, seed)
        y = tflm_outputs(data, graph, x)
        assert_same(interpret(graph, x), y, f"{graph.name}: reference interpreter")
        inputs.append(x)
        outputs.append(y)
    return inputs, outputs


def _bytes_c(name: str, data: bytes) -> str:
    return f"static const unsigned char {name}[{len(data)}] = {{{', '.join(map(str, data))}}};"


def host_main(compiled: list[CompiledModel], inputs: list[dict[str, np.ndarray]]) -> str:
    """A program that runs every model on its inputs (built in) and writes every output to stdout, in order."""
    lines = ["#include <stdio.h>", "#include <string.h>",
             *[f'#include "{m.names.header}"' for m in compiled], ""]
    calls = []
    for m, given in zip(compiled, inputs):
        n, graph = m.names, m.graph
        for i, t in enumerate(graph.inputs):
            data = np.ascontiguousarray(given[t.name], dtype=t.dtype.np).tobytes()
            lines.append(_bytes_c(f"{n.prefix}_in{i}", data))
            calls.append(f"  memcpy({n.symbol(f'input{i}_buffer')}(), {n.prefix}_in{i}, sizeof {n.prefix}_in{i});")
        args = [f"{n.symbol(f'input{i}_buffer')}()" for i in range(len(graph.inputs))]
        args += [f"{n.symbol(f'output{i}_buffer')}()" for i in range(len(graph.outputs))]
        calls.append(f"  if ({n.symbol('run')}({', '.join(args)}) != 0) return 1;")
        calls += [f"  fwrite({n.symbol(f'output{i}_buffer')}(), 1, {n.macro}_OUTPUT{i}_BYTES, stdout);"
                  for i in range(len(graph.outputs))]
    return "\n".join([*lines, "", "int main(void) {", *calls, "  return 0;", "}", ""])


def split_outputs(compiled: list[CompiledModel], data: bytes) -> list[dict[str, np.ndarray]]:
    outputs, at = [], 0
    for m in compiled:
        got = {}
        for t in m.graph.outputs:
            got[t.name] = np.frombuffer(data[at:at + t.nbytes], dtype=t.dtype.np).reshape(t.shape)
            at += t.nbytes
        outputs.append(got)
    assert at == len(data)
    return outputs


def test_two_named_libraries_link_into_one_host_program(models: dict, tmp_path: Path) -> None:
    compiled = [compile_graph(graph, core=Core.VECTOR, name=name) for name, (_, graph) in models.items()]
    for m in compiled:
        m.write(tmp_path / m.names.prefix)
    # both libraries carry fully_connected; under their own names it is defined twice without a clash
    carried = [{Path(rel).name for rel in m.sources if rel.startswith("mote/")} for m in compiled]
    assert "mote_fully_connected_s8.c" in carried[0] & carried[1]
    (tmp_path / "main.c").write_text(host_main(compiled, expected(models, 0)[0]))
    sources = [f"{m.names.prefix}/{rel}" for m in compiled for rel in library_sources(m)]
    includes = [f"-I{m.names.prefix}/src" for m in compiled]
    cmd = [find_cc(), "-O2", *FLOAT_SEMANTICS, *WARNINGS, *includes, "-o", "both", "main.c", *sources]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    inputs, outputs = expected(models, 0)
    run = subprocess.run([str(tmp_path / "both")], capture_output=True, check=True)
    for got, want, m in zip(split_outputs(compiled, run.stdout), outputs, compiled):
        assert_same(got, want, f"{m.names.prefix} in the two-model host program")
    # every global symbol of the program's model code is in one of the two namespaces
    nm = subprocess.run(["nm", "--defined-only", "-g", str(tmp_path / "both")], capture_output=True, text=True)
    if nm.returncode == 0:
        ours = [line.split()[-1] for line in nm.stdout.splitlines() if re.search(r"\b(mote|model)_", line)]
        assert ours == [], ours
        assert any(line.endswith(" kws_mote_fully_connected_s8") for line in nm.stdout.splitlines())
        assert any(line.endswith(" ad_mote_fully_connected_s8") for line in nm.stdout.splitlines())


def test_two_named_libraries_link_into_one_rv32_firmware(models: dict, tmp_path: Path) -> None:
    compiled = [compile_graph(graph, core=Core.SCALAR, name=name) for name, (_, graph) in models.items()]
    firmware = build_several(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    project = tmp_path / "fw"
    assert {p.name for p in project.iterdir()} >= {"kws", "ad", "rv32"}
    assert (project / "rv32" / "kws_mote_micro_s8.S").is_file()
    for seed in range(2):
        inputs, outputs = expected(models, seed)
        run = run_several(firmware, inputs)
        for got, want, m in zip(run.outputs, outputs, compiled):
            assert_same(got, want, f"{m.names.prefix} in the two-model firmware, seed {seed}")
        assert len(run.instructions) == 2 and all(n > 0 for n in run.instructions)
    elf = firmware.build.elf.read_bytes()
    assert b"kws_run" in elf and b"ad_run" in elf and b"kws_mote_" in elf and b"ad_mote_" in elf


def test_models_in_one_firmware_need_different_names(models: dict, tmp_path: Path) -> None:
    _, graph = models["ad"]
    twice = [compile_graph(graph, core=Core.SCALAR, name="ad")] * 2
    with pytest.raises(Exception, match="different names"):
        build_several(twice, tmp_path / "fw")


@pytest.mark.parametrize("accel", ["qvanilla", "dla"])
def test_a_named_library_that_offloads_runs_on_the_virtual_platform(accel: str, tmp_path: Path) -> None:
    """The accelerator's driver and its error pointer take the name too (kws_mote_qvanilla_run,
    kws_mote_last_error), and the firmware main calls them by it."""
    graph = load(pipeline.default_model())
    compiled = compile_graph(graph, find_accelerator(accel), Core.SCALAR, name="kws")
    firmware = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig"))
    assert "kws_mote_last_error" in (tmp_path / "fw" / "rv32" / "main.c").read_text()
    assert f"kws_mote_{accel}_run(" in compiled.sources["kws.c"]
    inputs = random_inputs(graph, 0)
    assert_same(firmware.run(inputs).outputs, interpret(graph, inputs), f"kws offloading to {accel}")


def test_names_that_differ_only_in_case_would_share_macros(models: dict, tmp_path: Path) -> None:
    _, graph = models["ad"]
    both = [compile_graph(graph, core=Core.SCALAR, name=name) for name in ("ad", "AD")]
    with pytest.raises(Exception, match="apart from case"):
        build_several(both, tmp_path / "fw")
