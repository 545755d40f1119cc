"""The Target interface and registry (mote.targets): a target defined here plugs into the pipeline and
the CLI's JSON without either knowing its name; the built-in targets' project files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mote import pipeline
from mote.accel import find_accelerator
from mote.codegen.compile import CompiledModel
from mote.errors import MoteError
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets import TARGETS, Target, TargetFigures, TargetRun, find_target
from mote.targets.base import Compiler, MemorySizes
from mote.targets.host import Host
from mote.targets.rv32 import Rv32, Rv32Config


@dataclass(frozen=True)
class EchoFigures(TargetFigures):
    layers_run: int

    def to_json(self) -> dict[str, Any]:
        return {"echo_layers_run": self.layers_run}

    def layer_json(self, index: int) -> dict[str, Any]:
        return {"echo_index": index}


class Echo(Target):
    """A target that 'runs' the compiled graph with the reference interpreter and writes a project."""

    name = "echo"
    isa = "none"

    def core(self) -> Core:
        return Core.SCALAR

    def compiler(self) -> Compiler:
        return Compiler("none", ())

    def memory(self) -> MemorySizes:
        return MemorySizes(ram_bytes=1 << 20)

    def project_files(self, model: CompiledModel) -> dict[str, str]:
        return {"echo.txt": f"{len(model.layers)} layers\n"}

    def build(self, model: CompiledModel, project_dir: Path) -> CompiledModel:
        self.write_project(model, project_dir)
        return model

    def run(self, model: CompiledModel, project_dir: Path, inputs: dict[str, np.ndarray]) -> TargetRun:
        built = self.build(model, project_dir)
        return TargetRun(interpret(built.graph, inputs), EchoFigures(len(built.layers)))


def test_a_new_target_plugs_in_by_its_registry_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(TARGETS, Echo.name, Echo)
    report = pipeline.run(pipeline.default_model(), target="echo", work_dir=tmp_path)
    assert report.target == "echo" and report.bit_exact
    assert report.compiled.core is Core.SCALAR  # the pipeline asked the target which kernels to use
    data = report.to_json()
    assert data["echo_layers_run"] == len(report.compiled.layers) > 0
    assert [layer["echo_index"] for layer in data["layers"]] == [layer.index for layer in report.compiled.layers]
    project = tmp_path / "digits_cnn"
    assert (project / "echo.txt").read_text() == f"{len(report.compiled.layers)} layers\n"
    assert (project / "src" / "model.c").is_file() and not (project / "examples").exists()  # no host driver


def test_targets_without_accelerators_refuse_one_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TARGETS, Echo.name, Echo)
    with pytest.raises(MoteError, match="virtual platform only; use --target rv32"):
        pipeline.run(Path("no such model.tflite"), target="echo", accelerator=find_accelerator("qvanilla"))


def test_unknown_target_is_a_one_line_error() -> None:
    with pytest.raises(MoteError) as error:
        find_target("cortex-m99")
    assert str(error.value) == ("unknown target 'cortex-m99'; targets: host, rv32, cortex-m0plus, cortex-m4, "
                                "cortex-m7, cortex-m33")


def test_the_built_in_targets() -> None:
    assert list(TARGETS) == ["host", "rv32", "cortex-m0plus", "cortex-m4", "cortex-m7", "cortex-m33"]
    host, rv32 = find_target("host"), find_target("rv32")
    assert find_target("cortex-m4").core() is Core.DSP and find_target("cortex-m0plus").core() is Core.ARMV6M
    assert isinstance(host, Host) and isinstance(rv32, Rv32)
    assert rv32.core() is Core.SCALAR and rv32.isa == "rv32imc" and rv32.accelerators and not host.accelerators
    assert host.core() in (Core.VECTOR, Core.VNNI) and host.memory() == MemorySizes()
    assert "-Werror" in host.compiler().flags
    small = Rv32(Rv32Config(cc="zig", ram_bytes=256 << 10, opt="-Os"))
    assert small.memory() == MemorySizes(2 << 20, 256 << 10, 16 << 10)
    assert small.compiler().name.startswith("zig") and "-Os" in small.compiler().flags


def test_only_the_host_project_carries_the_host_driver(tmp_path: Path) -> None:
    compiled = pipeline.compile_model(pipeline.default_model())
    assert not [rel for rel in compiled.sources if "main" in rel]  # codegen writes the library only
    host_files = Host().project_files(compiled)
    assert set(host_files) == {"examples/host/main.c", "examples/host/Makefile", "examples/host/CMakeLists.txt"}
    assert "model_run(" in host_files["examples/host/main.c"]
    rv32_files = Rv32(Rv32Config(ram_bytes=256 << 10)).project_files(compiled)
    assert {"rv32/main.c", "rv32/startup.S", "rv32/link.ld", "rv32/mote_vp.h"} <= rv32_files.keys()
    assert "RAM (rw) : ORIGIN = 0x20000000, LENGTH = 262144" in rv32_files["rv32/link.ld"]
    Host().write_project(compiled, tmp_path / "p")
    assert {p.name for p in (tmp_path / "p").iterdir()} >= {"examples", "src", "CMakeLists.txt"}
    assert {p.name for p in (tmp_path / "p" / "src").iterdir()} >= {"model.c", "model.h", "mote"}
