"""DYNAMIC_UPDATE_SLICE and BROADCAST_ARGS, which read runtime indices and shapes, against TFLite Micro (start
indices clamped, shapes that do not broadcast failing); the generated C under the sanitizers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.errors import BuildError, MoteError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from mote.targets.host import build_host
from tests.conftest import tflm_outputs


def update_slice_model(dtype: str, operand: list[int], update: list[int], index_dtype: str = "int32") -> bytes:
    q = {"scale": 0.1, "zero_point": 0} if dtype in ("int8", "int16") else {}
    mb = ModelBuilder()
    x = mb.tensor("x", operand, dtype, **q)
    u = mb.tensor("u", update, dtype, **q)
    s = mb.tensor("s", [len(operand)], index_dtype)
    y = mb.tensor("y", operand, dtype, **q)
    mb.op("DYNAMIC_UPDATE_SLICE", [x, u, s], [y])
    return mb.build([x, u, s], [y])


def broadcast_args_model(dtype: str, a: int, b: int, ones: bool = False) -> bytes:
    """With `ones`, the second shape is a constant of ones (the fuzzer's seed: any first shape broadcasts)."""
    mb = ModelBuilder()
    x = mb.tensor("a", [a], dtype)
    z = mb.tensor("b", [b], dtype, data=np.ones(b, dtype) if ones else None)
    y = mb.tensor("y", [max(a, b)], dtype)
    mb.op("BROADCAST_ARGS", [x, z], [y])
    return mb.build([x] if ones else [x, z], [y])


def _values(shape: list[int], dtype: str, rng: np.random.Generator) -> np.ndarray:
    if dtype == "float32":
        return rng.normal(size=shape).astype(np.float32)
    return rng.integers(-100, 100, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16", "int32"])
@pytest.mark.parametrize("starts", [[0, 0, 0], [1, 2, 1], [-3, 9, 1], [2, 0, 5]], ids=str)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_update_slice_matches_tflm(dtype: str, starts: list[int], index_dtype: str, tmp_path: Path) -> None:
    model = update_slice_model(dtype, [4, 5, 3], [2, 3, 2], index_dtype)
    graph = load_tflite(model, "m")
    rng = np.random.default_rng(0)
    inputs = {"x": _values([4, 5, 3], dtype, rng), "u": _values([2, 3, 2], dtype, rng),
              "s": np.array(starts, index_dtype)}
    want = tflm_outputs(model, graph, inputs)["y"]
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], want)
    if dtype == "int8":
        binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
        np.testing.assert_array_equal(binary.run(inputs)[0]["y"], want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("a,b", [([2, 1, 3], [4, 1]), ([5], [3, 1, 5]), ([1, 1], [1, 1])], ids=str)
def test_broadcast_args_matches_tflm(dtype: str, a: list[int], b: list[int], tmp_path: Path) -> None:
    model = broadcast_args_model(dtype, len(a), len(b))
    graph = load_tflite(model, "m")
    inputs = {"a": np.array(a, dtype), "b": np.array(b, dtype)}
    want = tflm_outputs(model, graph, inputs)["y"]
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], want)
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    np.testing.assert_array_equal(binary.run(inputs)[0]["y"], want)
    bad = {"a": np.array([2] * len(a), dtype), "b": np.array([3] * len(b), dtype)}
    with pytest.raises(MoteError, match="do not broadcast"):
        interpret(graph, bad)
    with pytest.raises(BuildError, match="model_run failed"):
        binary.run(bad)
