"""CAST (every pair of the dtypes TFLite Micro casts between) and LOGICAL_NOT against TFLite Micro: the reference
and the generated C identical with the interpreter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.cast import CAST_DTYPES
from mote.reference import interpret
from mote.targets.host import build_host
from tests.conftest import assert_same, tflm_outputs

PAIRS = [(a.value, b.value) for a in CAST_DTYPES for b in CAST_DTYPES if a is not b]


def cast_model(source: str, target: str) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [6, 50], source)
    y = mb.tensor("y", [6, 50], target)
    mb.op("CAST", [x], [y])
    return mb.build([x], [y])


def values(dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype == "float32":  # fractions both ways, zeros, and values that wrap when narrowed
        x = rng.uniform(-70000, 70000, 300) * rng.choice([1e-4, 1e-2, 1.0], 300)
        x[:6] = [-0.0, 0.5, -0.99, np.nan, 3e9, -1e20]
        return x.astype(np.float32).reshape(6, 50)
    if dtype == "bool":
        return rng.integers(0, 2, (6, 50)).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, (6, 50)).astype(dtype)


@pytest.mark.parametrize("source,target", PAIRS)
def test_cast_matches_tflite_micro(source: str, target: str, tmp_path: Path) -> None:
    data = cast_model(source, target)
    graph = load_tflite(data, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=source == "float32")
    inputs = {"x": values(source, np.random.default_rng(len(source) * 7 + len(target)))}
    expected = tflm_outputs(data, graph, inputs)
    assert_same(interpret(graph, inputs), expected, "reference")
    assert_same(binary.run(inputs)[0], expected, "generated C")


def test_logical_not_matches_tflite_micro(check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [3, 7], "bool")
    y = mb.tensor("y", [3, 7], "bool")
    mb.op("LOGICAL_NOT", [x], [y])
    check_model(mb.build([x], [y]), seeds=2)
