"""The Python API behind the CLI: load, compile, run on a target, check against the reference."""

from __future__ import annotations

import contextlib
import functools
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel.interface import Accelerator
from mote.arena_notes import arena_notes
from mote.codegen.compile import CompiledModel, compile_graph
from mote.codegen.flash_budget import fit_flash
from mote.codegen.naming import DEFAULT
from mote.errors import MoteError
from mote.frontend import load
from mote.frontend.onnx import OnnxModel, is_onnx, load_onnx_model
from mote.inputs import load_inputs, random_inputs
from mote.ir import Graph
from mote.ops.registry import Core
from mote.outputs import check_output_root, check_project_dir, safe_file_name
from mote.passes.accel_weights import for_accelerator as narrow_for
from mote.reference import interpret
from mote.targets import Target, TargetFigures, find_target
from mote.tflm_match import TflmMatch, tflm_match

__all__ = ["RunReport", "compile_model", "default_model", "run"]


def default_model() -> Path:
    """The bundled digits CNN (see mote/models/README.md)."""
    return Path(str(resources.files("mote.models").joinpath("digits_cnn.tflite")))


def compile_model(model_path: Path, accelerator: Accelerator | None = None, core: Core = Core.VECTOR,
                  name: str = DEFAULT, flash_budget: int | None = None) -> CompiledModel:
    """The model file compiled for `core`, its symbols in the namespace `name` (mote.codegen.naming), its weights
    within `flash_budget` bytes when given (mote.codegen.flash_budget)."""
    graph = narrow_for(load(model_path), accelerator)
    if flash_budget is None:
        return compile_graph(graph, accelerator, core, name=name)
    return fit_flash(lambda compact: compile_graph(graph, accelerator, core, name=name, compact=compact), flash_budget)


@dataclass
class RunReport:
    """One run: the model as compiled, the outputs the target computed, how many differ from the
    reference, and what the target measured (`figures`: HostFigures, SimFigures, ... of mote.targets)."""

    model: str
    target: str
    compiled: CompiledModel
    outputs: dict[str, np.ndarray]
    mismatches: int
    figures: TargetFigures
    onnxruntime: dict[str, Any] = field(default_factory=dict)  # ONNX models: the match with onnxruntime
    tflite_micro: TflmMatch | None = None  # TFLite models, when asked: the match with TFLite Micro
    onnx_outputs: dict[str, np.ndarray] | None = None  # integer-dialect ONNX: the outputs as the model's (saved)
    # with an accelerator: the arena the same model plans with every layer on the CPU (no accelerator layouts,
    # no transposes around its regions), to report the RAM its layouts add; None: no accelerator, or no such plan
    cpu_arena_bytes: int | None = None

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
            **({} if self.cpu_arena_bytes is None else {"arena_bytes_without_accel": self.cpu_arena_bytes}),
            "state_bytes": c.state_bytes,
            "weights_bytes": c.weights_bytes,
            **({"l1_tile_bytes": c.l1_bytes} if c.l1_budget else {}),
            "macs": c.macs,
            "kernels": c.core.value,
            "arena": self.arena,
            "notes": list(c.graph.notes),
            **self.figures.to_json(),
            **self.onnxruntime,
            **(self.tflite_micro.to_json() if self.tflite_micro else {}),
            "layers": [{"index": layer.index, "name": layer.name, "op": layer.op, "kernel": layer.kernel,
                        "runs_on": layer.runs_on, "macs": layer.macs, "scratch_bytes": layer.scratch_bytes,
                        "rom_bytes": layer.weights_bytes, "ram_bytes": layer.ram_bytes,
                        **({"l1_tiles": len(c.tiled[layer.index].tiles), "l1_bytes": c.tiled[layer.index].l1_bytes}
                           if c.tiled and layer.index in c.tiled else {}),
                        **self.figures.layer_json(layer.index)}
                       for layer in c.layers],
        }


def run(model_path: Path, *, target: str | Target = "host", input_path: Path | None = None, seed: int = 0,
        work_dir: Path | None = None, accelerator: Accelerator | None = None, calib: Path | None = None,
        calib_method: str = "MinMax", input_shapes: dict[str, tuple[int, ...]] | None = None,
        check_tflm: bool = False, flash_budget: int | None = None, narrow_as: Accelerator | None = None) -> RunReport:
    """Compile, build and run on `target` (a name of mote.targets.TARGETS with its defaults, or a
    configured Target such as Rv32(Rv32Config(...))); compare every output with the reference
    interpreter (which runs the original graph: offloading must not change a single bit). `check_tflm`:
    a .tflite model also runs in TFLite Micro's interpreter on the same inputs (mote.tflm_match). `flash_budget`:
    the weights' bytes at most (mote.codegen.flash_budget). `narrow_as`: without an accelerator, run the model
    with its weights narrowed as that accelerator's `weight_bits` setting narrows them (mote.passes.accel_weights),
    all on the CPU: the baseline of the same model."""
    chosen = find_target(target) if isinstance(target, str) else target
    original, compiled, onnx_model = prepare(model_path, chosen, accelerator, calib, calib_method, input_shapes,
                                             input_path, flash_budget, narrow_as)
    if onnx_model is not None and input_path:
        inputs = onnx_model.inputs_from_file(input_path)
    else:
        inputs = load_inputs(original, input_path) if input_path else random_inputs(original, seed)
    expected = interpret(original, inputs)
    with project_dir(compiled, work_dir) as project:
        outcome = chosen.run(compiled, project, inputs)
    mismatches = sum(int(np.count_nonzero(outcome.outputs[k] != v)) for k, v in expected.items())
    onnxruntime = onnx_model.report(inputs, outcome.outputs) if onnx_model is not None else {}
    tflm = tflm_match(model_path, original, inputs, outcome.outputs) if check_tflm and onnx_model is None else None
    integer = onnx_model is not None and onnx_model.conversion.dialect == "integer"
    onnx_outputs = onnx_model.onnx_outputs(outcome.outputs) if integer else None  # Deeploy's side of the files
    return RunReport(str(model_path), chosen.name, compiled, outcome.outputs, mismatches, outcome.figures,
                     onnxruntime, tflm, onnx_outputs, cpu_arena(original, compiled, chosen))


def cpu_arena(original: Graph, compiled: CompiledModel, target: Target) -> int | None:
    """The arena `original` plans with no accelerator (a compile, no run), beside `compiled`'s with one; None
    without an accelerator, or when the model does not compile for the CPU alone."""
    if compiled.accelerator is None:
        return None
    try:
        return compile_graph(original, None, target.core(), l1=target.l1_bytes()).plan.size
    except MoteError:
        return None


def prepare(model_path: Path, target: Target, accelerator: Accelerator | None, calib: Path | None = None,
            calib_method: str = "MinMax", input_shapes: dict[str, tuple[int, ...]] | None = None,
            input_path: Path | None = None,
            flash_budget: int | None = None,
            narrow_as: Accelerator | None = None) -> tuple[Graph, CompiledModel, OnnxModel | None]:
    """The model as loaded (an ONNX one maybe quantized first), compiled for `target`, and the ONNX model
    when it is one (its inputs in its own layout; compared with onnxruntime)."""
    target.check_accelerator(accelerator)
    onnx_model = None
    if is_onnx(model_path):
        onnx_model = load_onnx_model(model_path, calib, calib_method, input_shapes, input_path)
        original = onnx_model.graph
    else:
        original = load(model_path)
    original = narrow_for(original, accelerator or narrow_as)  # an accelerator's weight_bits: the graph everything runs
    if flash_budget is not None:
        compiled = fit_flash(lambda compact: compile_graph(original, accelerator, target.core(), l1=target.l1_bytes(),
                                                           compact=compact), flash_budget)
        return original, compiled, onnx_model
    compiled = compile_graph(original, accelerator, target.core(), l1=target.l1_bytes())
    flash = target.memory().flash_bytes
    if flash is not None and compiled.weights_bytes > flash and any(n.op == "conv2d_rqs" for n in compiled.graph.nodes):
        # the fused layers' pair-word weights do not fit the flash: the unfused layers' int8 weights may
        compiled = compile_graph(original, accelerator, target.core(), fuse=False, l1=target.l1_bytes())
    return original, compiled, onnx_model


@contextlib.contextmanager
def project_dir(compiled: CompiledModel, work_dir: Path | None) -> Iterator[Path]:
    """Where to build: `--keep DIR`'s DIR/<model name> (which must not escape DIR), else a temporary
    directory removed afterwards."""
    if work_dir is not None:
        check_output_root(work_dir, "--keep")
        check_project_dir(Path(work_dir) / safe_file_name(compiled.graph.name), "--keep")
    with tempfile.TemporaryDirectory(prefix="mote-") as tmp:
        yield (work_dir or Path(tmp)) / safe_file_name(compiled.graph.name)
