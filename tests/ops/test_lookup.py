"""GATHER_ND and EMBEDDING_LOOKUP against TFLite Micro: float32 and int8, indices of every depth, the
dequantizing lookup; an index out of range fails in the reference and in the C."""

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


def gather_nd_model(dtype: str, params: list[int], indices: list[int], constant: np.ndarray | None = None) -> bytes:
    """With `constant`, the indices are that constant (the fuzzer's seeds: random indices fail)."""
    q = {"scale": 0.1, "zero_point": 2} if dtype == "int8" else {}
    mb = ModelBuilder()
    x = mb.tensor("x", params, dtype, **q)
    i = mb.tensor("i", indices, "int32", data=constant)
    y = mb.tensor("y", [*indices[:-1], *params[indices[-1]:]], dtype, **q)
    mb.op("GATHER_ND", [x, i], [y])
    return mb.build([x] if constant is not None else [x, i], [y])


def lookup_model(table: str, out: str, rows: int = 6, ids: int = 4, constant: np.ndarray | None = None) -> bytes:
    """With `constant`, the ids are that constant and the table the model's input."""
    mb = ModelBuilder()
    q = {"scale": 0.05, "zero_point": 0} if table == "int8" else {}
    rng = np.random.default_rng(0)
    values = rng.integers(-128, 128, (rows, 3, 2)) if table == "int8" else rng.normal(size=(rows, 3, 2))
    values = values.astype(np.int8 if table == "int8" else np.float32)
    i = mb.tensor("ids", [ids], "int32", data=constant)
    t = mb.tensor("table", [rows, 3, 2], table, data=None if constant is not None else values, **q)
    y = mb.tensor("y", [ids, 3, 2], out, **(q if out == "int8" else {}))
    mb.op("EMBEDDING_LOOKUP", [i, t], [y])
    return mb.build([t] if constant is not None else [i], [y])


def _inputs(graph_inputs: list[object], rng: np.random.Generator, valid: dict[str, int]) -> dict[str, np.ndarray]:
    out = {}
    for t in graph_inputs:
        name, shape, dtype = t.name, t.shape, t.dtype.np  # type: ignore[attr-defined]
        if dtype == np.int32:
            out[name] = rng.integers(0, valid[name], shape).astype(np.int32)
        elif dtype == np.float32:
            out[name] = rng.normal(size=shape).astype(np.float32)
        else:
            out[name] = rng.integers(-128, 128, shape).astype(dtype)
    return out


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("params,indices", [([5, 4], [3, 1]), ([5, 4, 3], [2, 2]), ([4, 3, 2], [2, 3, 3]),
                                            ([6], [4, 1])], ids=str)
def test_gather_nd_matches_tflm(dtype: str, params: list[int], indices: list[int]) -> None:
    model = gather_nd_model(dtype, params, indices)
    graph = load_tflite(model, "m")
    inputs = _inputs(graph.inputs, np.random.default_rng(1), {"i": min(params[:indices[-1]])})
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("table,out", [("float32", "float32"), ("int8", "int8"), ("int8", "float32")])
def test_embedding_lookup_matches_tflm(table: str, out: str) -> None:
    model = lookup_model(table, out)
    graph = load_tflite(model, "m")
    inputs = {"ids": np.array([5, 0, 2, 2], np.int32)}
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


def test_c_matches_and_fails_out_of_range(tmp_path: Path) -> None:
    model = gather_nd_model("int8", [5, 4, 3], [2, 2])
    graph = load_tflite(model, "m")
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=True)
    inputs = _inputs(graph.inputs, np.random.default_rng(2), {"i": 4})
    np.testing.assert_array_equal(binary.run(inputs)[0]["y"], tflm_outputs(model, graph, inputs)["y"])
    inputs["i"][0, 0] = 9
    with pytest.raises(MoteError, match="out of range"):
        interpret(graph, inputs)
    with pytest.raises(BuildError, match="model_run failed"):
        binary.run(inputs)
    lookup = load_tflite(lookup_model("int8", "float32"), "m")
    binary = build_host(compile_graph(lookup), tmp_path / "q", sanitize=True)
    ids = {"ids": np.array([1, 5, 0, 3], np.int32)}
    np.testing.assert_array_equal(binary.run(ids)[0]["y"], interpret(lookup, ids)["y"])
    with pytest.raises(BuildError, match="model_run failed"):
        binary.run({"ids": np.array([1, 6, 0, 3], np.int32)})
