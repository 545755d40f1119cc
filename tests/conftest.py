"""Shared test helpers: the MLPerf Tiny models and a bit-exactness check against TFLite Micro."""

from __future__ import annotations

import os
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
from mote.tflm_match import ulp_bound, ulp_distance

REPO = Path(__file__).resolve().parents[1]
MLPERF_TINY = REPO / "models" / "mlperf-tiny"
# Verilated RTL accelerators: built once per source hash into the repository's build directory, shared by the
# test workers and kept for later runs (mote.accel.rtl.build)
os.environ.setdefault("MOTE_RTL_CACHE", str(REPO / "build" / "rtl"))


def tflm_outputs(model: bytes, graph: Graph, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    interp = runtime.Interpreter.from_bytes(model, arena_size=4 << 20)
    for i, t in enumerate(graph.inputs):
        interp.set_input(inputs[t.name], i)
    interp.invoke()
    return {t.name: interp.get_output(i).reshape(t.shape) for i, t in enumerate(graph.outputs)}


def assert_same(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray], what: str, ulp: int = 0) -> None:
    """Identical values (NaN equal to NaN); float values up to `ulp` apart when a bound applies
    (mote.tflm_match.ulp_bound)."""
    for name, want in expected.items():
        got = np.asarray(actual[name])
        if got.dtype == np.float32:
            distance = np.where(np.isnan(got) & np.isnan(want), 0, ulp_distance(got, want))
            mismatches = int(np.count_nonzero(distance > ulp))
        else:
            mismatches = int(np.count_nonzero(got != want))
        assert mismatches == 0, f"{what}: {mismatches}/{want.size} values of {name!r} differ from TFLite Micro"


@pytest.fixture
def check_model(tmp_path: Path) -> Callable[..., Graph]:
    """Run a .tflite model in TFLite Micro, in mote's reference interpreter and as generated C on the
    host (with the kernels for `core`), on `seeds` random inputs, and assert all three agree bit for bit
    (the reference with TFLite Micro within mote.tflm_match.ulp_bound where a float op computes a
    transcendental function; the C with the reference always bit for bit). `skip`: kernels no layer takes
    (the next record of its table does: mote.codegen.compile's `compact`)."""

    def check(model: bytes, seeds: int = 3, sanitize: bool = False, core: Core = Core.VECTOR,
              skip: frozenset[str] = frozenset()) -> Graph:
        graph = load_tflite(model, "test_model")
        compact = {node.name: skip for node in graph.nodes} if skip else None
        binary = build_host(compile_graph(graph, core=core, compact=compact), tmp_path / "project", sanitize=sanitize)
        for seed in range(seeds):
            inputs = random_inputs(graph, seed)
            expected = tflm_outputs(model, graph, inputs)
            reference = interpret(graph, inputs)
            assert_same(reference, expected, f"reference interpreter, seed {seed}", ulp_bound(graph))
            assert_same(binary.run(inputs)[0], reference, f"generated C against the reference, seed {seed}")
        return graph

    return check
