"""The Python API behind the CLI: load, compile, run on a target, check against the reference."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mote.codegen.compile import CompiledModel, compile_graph
from mote.errors import MoteError
from mote.frontend import load
from mote.inputs import load_inputs, random_inputs
from mote.reference import interpret
from mote.targets.host import build_host

TARGETS = ("host",)


def default_model() -> Path:
    """The bundled digits CNN (see mote/models/README.md)."""
    return Path(str(resources.files("mote.models").joinpath("digits_cnn.tflite")))


def compile_model(model_path: Path) -> CompiledModel:
    return compile_graph(load(model_path))


@dataclass
class RunReport:
    model: str
    target: str
    compiled: CompiledModel
    outputs: dict[str, np.ndarray]
    mismatches: int
    extra: dict[str, Any] = field(default_factory=dict)

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
            **self.extra,
            "layers": [{"index": layer.index, "name": layer.name, "op": layer.op, "kernel": layer.kernel,
                        "macs": layer.macs} for layer in c.layers],
        }


def run(model_path: Path, target: str = "host", input_path: Path | None = None, seed: int = 0,
        work_dir: Path | None = None) -> RunReport:
    """Compile, build and run on `target`; compare every output with the reference interpreter."""
    if target not in TARGETS:
        raise MoteError(f"unknown target {target!r}; targets: {', '.join(TARGETS)}")
    compiled = compile_model(model_path)
    graph = compiled.graph
    inputs = load_inputs(graph, input_path) if input_path else random_inputs(graph, seed)
    expected = interpret(graph, inputs)
    with tempfile.TemporaryDirectory(prefix="mote-") as tmp:
        project = (work_dir or Path(tmp)) / graph.name
        binary = build_host(compiled, project)
        outputs, _ = binary.run(inputs)
        _, us = binary.run(inputs, iterations=_timing_iterations(compiled.macs))
    mismatches = sum(int(np.count_nonzero(outputs[k] != v)) for k, v in expected.items())
    extra = {"host_us_per_inference": us, "cc": binary.cc, "cflags": " ".join(binary.flags)}
    return RunReport(str(model_path), target, compiled, outputs, mismatches, extra)


def _timing_iterations(macs: int) -> int:
    """About a quarter second of work at ~1 GMAC/s, within sane bounds."""
    return int(min(max(2.5e8 / max(macs, 1), 3), 10_000))
