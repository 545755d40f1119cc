"""Shared test helpers: the MLPerf Tiny models and a bit-exactness check against TFLite Micro."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs
from mote.ir import Graph
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host

REPO = Path(__file__).resolve().parents[1]
MLPERF_TINY = REPO / "models" / "mlperf-tiny"


def tflm_outputs(model: bytes, graph: Graph, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    interp = runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
    for i, t in enumerate(graph.inputs):
        interp.set_input(inputs[t.name], i)
    interp.invoke()
    return {t.name: interp.get_output(i).reshape(t.shape) for i, t in enumerate(graph.outputs)}


def assert_same(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray], what: str) -> None:
    for name, want in expected.items():
        got = actual[name]
        mismatches = int(np.count_nonzero(got != want))
        assert mismatches == 0, f"{what}: {mismatches}/{want.size} values of {name!r} differ from TFLite Micro"


@pytest.fixture
def check_model(tmp_path: Path) -> Callable[..., Graph]:
    """Run a .tflite model in TFLite Micro, in mote's reference interpreter and as generated C on the
    host (with the kernels for `core`), on `seeds` random inputs, and assert all three agree bit for bit."""

    def check(model: bytes, seeds: int = 3, sanitize: bool = False, core: Core = Core.VECTOR) -> Graph:
        graph = load_tflite(model, "test_model")
        binary = build_host(compile_graph(graph, core=core), tmp_path / "project", sanitize=sanitize)
        for seed in range(seeds):
            inputs = random_inputs(graph, seed)
            expected = tflm_outputs(model, graph, inputs)
            assert_same(interpret(graph, inputs), expected, f"reference interpreter, seed {seed}")
            assert_same(binary.run(inputs)[0], expected, f"generated C, seed {seed}")
        return graph

    return check
