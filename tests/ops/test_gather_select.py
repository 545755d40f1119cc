"""GATHER, SELECT_V2, ARG_MAX and ARG_MIN against TFLite Micro: the reference and the generated C identical with
the interpreter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.errors import MoteError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.gather_select import DTYPES
from mote.reference import interpret
from mote.targets.host import build_host
from tests.conftest import assert_same, tflm_outputs

QUANT = {"int8": {"scale": 0.05, "zero_point": 2}, "int16": {"scale": 0.01, "zero_point": 0}}


def gather_model(dtype: str, axis: int, index_dtype: str = "int32") -> bytes:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", [3, 5, 4], dtype, **q)
    ix = mb.tensor("ix", [2, 3], index_dtype)
    shape = [3, 5, 4]
    out = [*shape[:axis], 2, 3, *shape[axis + 1:]]
    y = mb.tensor("y", out, dtype, **q)
    mb.op("GATHER", [x, ix], [y], axis=axis)
    return mb.build([x, ix], [y])


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["gather"]])
def test_gather_matches_tflite_micro(dtype: str, tmp_path: Path) -> None:
    for axis, index_dtype in ((1, "int32"), (0, "int32")):
        data = gather_model(dtype, axis, index_dtype)
        graph = load_tflite(data, "m")
        binary = build_host(compile_graph(graph), tmp_path / f"p{axis}", sanitize=dtype == "int8")
        rng = np.random.default_rng(axis)
        extent = [3, 5, 4][axis]
        x = rng.integers(-100, 100, (3, 5, 4)).astype(dtype)
        inputs = {"x": x, "ix": rng.integers(0, extent, (2, 3)).astype(index_dtype)}
        expected = tflm_outputs(data, graph, inputs)
        assert_same(interpret(graph, inputs), expected, "reference")
        assert_same(binary.run(inputs)[0], expected, "generated C")


def test_gather_index_out_of_range_fails_in_both(tmp_path: Path) -> None:
    data = gather_model("float32", 1)
    graph = load_tflite(data, "m")
    inputs = {"x": np.zeros((3, 5, 4), np.float32), "ix": np.array([[0, 1, 5], [0, 0, 0]], np.int32)}
    with pytest.raises(MoteError, match="outside"):
        interpret(graph, inputs)


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["select_v2"]])
def test_select_v2_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    c = mb.tensor("c", [4, 1], "bool")
    x = mb.tensor("x", [4, 3], dtype, **q)
    y = mb.tensor("y", [3], dtype, **q)
    out = mb.tensor("out", [4, 3], dtype, **q)
    mb.op("SELECT_V2", [c, x, y], [out])
    check_model(mb.build([c, x, y], [out]), seeds=2, sanitize=dtype == "int8")


@pytest.mark.parametrize("builtin", ["ARG_MAX", "ARG_MIN"])
@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["arg_max"]])
def test_arg_max_min_match_tflite_micro(builtin: str, dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", [3, 6, 4], dtype, **q)
    axis = mb.tensor("axis", [1], "int32", data=np.array([1]))
    out_type = "int32"
    y = mb.tensor("y", [3, 4], out_type)
    mb.op(builtin, [x, axis], [y], output_type=2 if out_type == "int32" else 4)  # TensorType INT32, INT64
    check_model(mb.build([x], [y]), seeds=2)
