"""The Python API behind the CLI: load, compile, run on a target, check against the reference."""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.interface import Accelerator
from mote.arena_notes import arena_notes
from mote.codegen.compile import CompiledModel, compile_graph
from mote.errors import MoteError
from mote.frontend import load
from mote.inputs import load_inputs, random_inputs
from mote.onnx_run import is_onnx, load_onnx_model
from mote.ops.registry import Core
from mote.outputs import check_output_root, check_project_dir, safe_file_name
from mote.reference import interpret
from mote.targets.host import build_host, host_core
from mote.targets.rv32 import Rv32Config, build_rv32

TARGETS = ("host", "rv32")


def default_model() -> Path:
    """The bundled digits CNN (see mote/models/README.md)."""
    return Path(str(resources.files("mote.models").joinpath("digits_cnn.tflite")))


def compile_model(model_path: Path, accelerator: Accelerator | None = None, core: Core = Core.VECTOR) -> CompiledModel:
    return compile_graph(load(model_path), accelerator, core)


@dataclass
class RunReport:
    model: str
    target: str
    compiled: CompiledModel
    outputs: dict[str, np.ndarray]
    mismatches: int
    extra: dict[str, Any] = field(default_factory=dict)  # the target's own figures
    layer_extra: dict[int, dict[str, Any]] = field(default_factory=dict)  # per layer index

    @functools.cached_property
    def arena(self) -> dict[str, Any]:
        """Which kernels take scratch in the arena and what the other kernel family needs (mote.arena_notes)."""
        return arena_notes(self.compiled)

    @property
    def bit_exact(self) -> bool:
        return self.mismatches == 0

    def to_json(self) -> dict[str, Any]:
        c = self.compiled
        return {
            "model": self.model,
            "target": self.target,
            "bit_exact": self.bit_exact,
            "mismatches": self.mismatches,
            "arena_bytes": c.plan.size,
            "arena_lower_bound_bytes": c.plan.lower_bound,
            "weights_bytes": c.weights_bytes,
            "macs": c.macs,
            "kernels": c.core.value,
            "arena": self.arena,
            **self.extra,
            "layers": [{"index": layer.index, "name": layer.name, "op": layer.op, "kernel": layer.kernel,
                        "runs_on": layer.runs_on, "macs": layer.macs, "scratch_bytes": layer.scratch_bytes,
                        **self.layer_extra.get(layer.index, {})}
                       for layer in c.layers],
        }


def run(model_path: Path, target: str = "host", input_path: Path | None = None, seed: int = 0,
        work_dir: Path | None = None, rv32: Rv32Config | None = None,
        instruction_limit: int | None = None, accelerator: Accelerator | None = None,
        calib: Path | None = None, calib_method: str = "MinMax",
        input_shapes: dict[str, tuple[int, ...]] | None = None) -> RunReport:
    """Compile, build and run on `target`; compare every output with the reference interpreter
    (which runs the original graph: offloading must not change a single bit)."""
    if target not in TARGETS:
        raise MoteError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")
    if accelerator is not None and target != "rv32":
        raise MoteError(f"the {accelerator.name} accelerator exists on the virtual platform only; use --target rv32")
    onnx_model = None
    if is_onnx(model_path):  # ONNX: maybe quantized first; inputs in its own layout; compared with onnxruntime
        onnx_model = load_onnx_model(model_path, calib, calib_method, input_shapes)
        original = onnx_model.graph
    else:
        original = load(model_path)
    compiled = compile_graph(original, accelerator, Core.SCALAR if target == "rv32" else host_core())
    if onnx_model is not None and input_path:
        inputs = onnx_model.inputs_from_file(input_path)
    else:
        inputs = load_inputs(original, input_path) if input_path else random_inputs(original, seed)
    expected = interpret(original, inputs)
    if work_dir is not None:  # --keep DIR: the project goes to DIR/<model name>, which must not escape DIR
        check_output_root(work_dir, "--keep")
        check_project_dir(Path(work_dir) / safe_file_name(compiled.graph.name), "--keep")
    with tempfile.TemporaryDirectory(prefix="mote-") as tmp:
        project = (work_dir or Path(tmp)) / safe_file_name(compiled.graph.name)
        if target == "host":
            outputs, extra, layer_extra = _run_host(compiled, project, inputs)
        else:
            outputs, extra, layer_extra = _run_rv32(compiled, project, inputs, rv32 or Rv32Config(),
                                                    instruction_limit)
    mismatches = sum(int(np.count_nonzero(outputs[k] != v)) for k, v in expected.items())
    if onnx_model is not None:
        extra.update(onnx_model.report(inputs, outputs))
    return RunReport(str(model_path), target, compiled, outputs, mismatches, extra, layer_extra)


Outcome = tuple[dict[str, np.ndarray], dict[str, Any], dict[int, dict[str, Any]]]


def _run_host(compiled: CompiledModel, project: Path, inputs: dict[str, np.ndarray]) -> Outcome:
    binary = build_host(compiled, project)
    outputs, _ = binary.run(inputs)
    _, us = binary.run(inputs, iterations=_timing_iterations(compiled.macs))
    return outputs, {"host_us_per_inference": us, "cc": binary.cc, "cflags": " ".join(binary.flags),
                     "kernels": compiled.core.value}, {}


def _run_rv32(compiled: CompiledModel, project: Path, inputs: dict[str, np.ndarray], config: Rv32Config,
              instruction_limit: int | None) -> Outcome:
    firmware = build_rv32(compiled, project, config)
    result = firmware.run(inputs, **({"instruction_limit": instruction_limit} if instruction_limit else {}))
    sim = result.to_json()
    profile = sim.pop("layer_profile")
    macs = compiled.macs
    sim["instructions_per_mac"] = round(result.instructions / macs, 3) if macs else None
    if compiled.accelerator is not None:
        sim["accelerator"] = compiled.accelerator.label
        sim["offloaded_layers"] = sum(layer.runs_on != "cpu" for layer in compiled.layers)
        sim["cpu_layers"] = sum(layer.runs_on == "cpu" and layer.kernel != "in place" for layer in compiled.layers)
    layer_extra = {}
    for p in profile:
        layer_macs = next(layer.macs for layer in compiled.layers if layer.index == p["index"])
        share = p["instructions"] / result.instructions if result.instructions else 0.0
        layer_extra[p["index"]] = {"instructions": p["instructions"], "cycles": p["cycles"],
                                   "accel_cycles": p["accel_cycles"],
                                   "share": round(share, 4),
                                   "instructions_per_mac": round(p["instructions"] / layer_macs, 3)
                                   if layer_macs else None}
    return result.outputs, sim, layer_extra


def _timing_iterations(macs: int) -> int:
    """About a quarter second of work at ~1 GMAC/s, within sane bounds."""
    return int(min(max(2.5e8 / max(macs, 1), 3), 10_000))
