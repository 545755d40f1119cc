"""int16 RELU, RELU6, PAD, MEAN and ABS (and int8 ABS) against TFLite Micro, on every int16 value where the
op is elementwise; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops import OPS
from mote.reference import interpret
from tests.conftest import tflm_outputs


def unary_model(builtin: str, dtype: str, size: int, scales: tuple[float, float] | None,
                zero_points: tuple[int, int] = (0, 0)) -> bytes:
    mb = ModelBuilder()
    q = [{} if scales is None else {"scale": scales[k], "zero_point": zero_points[k]} for k in range(2)]
    x = mb.tensor("x", [size], dtype, **q[0])
    y = mb.tensor("y", [size], dtype, **q[1])
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


def _every_value(model: bytes, dtype: str) -> None:
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1).astype(dtype)
    graph = load_tflite(model, "m")
    node = graph.nodes[0]
    op = OPS[node.op]
    got = op.reference(node, op.prepare(node), [x])[0]
    np.testing.assert_array_equal(got, tflm_outputs(model, graph, {"x": x})["y"])


CASES = [("RELU", "int16", (1e-3, 2e-3), (0, 0)), ("RELU", "int16", (1e-3, 1e-3), (0, 0)),
         ("RELU6", "int16", (3e-4, 3e-4), (0, 0)), ("RELU6", "int16", (3e-4, 3e-4), (-20, -20)),
         ("ABS", "int16", (1e-3, 1e-3), (0, 0)), ("ABS", "int16", (1e-3, 3e-3), (0, 0)), ("ABS", "int16", None, (0, 0)),
         ("ABS", "int8", (0.05, 0.05), (7, -3)), ("ABS", "int8", (0.05, 0.03), (-100, -128))]


@pytest.mark.parametrize("builtin,dtype,scales,zero_points", CASES, ids=str)
def test_elementwise_matches_tflm_on_every_value(builtin: str, dtype: str, scales: tuple[float, float] | None,
                                                 zero_points: tuple[int, int]) -> None:
    size = 1 << (8 * np.dtype(dtype).itemsize)
    _every_value(unary_model(builtin, dtype, size, scales, zero_points), dtype)


def pad_model() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 3, 4], "int16", scale=0.01, zero_point=5)
    pads = mb.tensor("p", [3, 2], "int32", data=np.array([[1, 0], [0, 2], [3, 1]]))
    y = mb.tensor("y", [3, 5, 8], "int16", scale=0.01, zero_point=5)
    mb.op("PAD", [x, pads], [y])
    return mb.build([x], [y])


def mean_model(axes: list[int], keep_dims: bool, scales: tuple[float, float]) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 5, 6, 3], "int16", scale=scales[0], zero_point=0)
    a = mb.tensor("a", [len(axes)], "int32", data=np.array(axes))
    shape = [1 if d in axes else n for d, n in enumerate([2, 5, 6, 3])]
    y = mb.tensor("y", shape if keep_dims else [n for d, n in enumerate(shape) if d not in axes], "int16",
                  scale=scales[1], zero_point=0)
    mb.op("MEAN", [x, a], [y], keep_dims=keep_dims)
    return mb.build([x], [y])


MODELS = {"pad": pad_model, "mean-spatial": lambda: mean_model([1, 2], True, (1e-3, 1e-3)),
          "mean-last": lambda: mean_model([3], False, (1e-3, 7e-4)),
          "mean-all": lambda: mean_model([0, 1, 2, 3], True, (1e-3, 3e-3))}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_pad_and_mean_match_tflm(name: str, check_model: Callable[..., object]) -> None:
    model = MODELS[name]()
    graph = load_tflite(model, "m")
    for seed in range(3):
        inputs = random_inputs(graph, seed)
        np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])
    check_model(model, seeds=2, sanitize=True)


@pytest.mark.parametrize("builtin,dtype,scales,zero_points", CASES[::2], ids=str)
def test_c_matches_tflm(builtin: str, dtype: str, scales: tuple[float, float] | None, zero_points: tuple[int, int],
                        check_model: Callable[..., object]) -> None:
    check_model(unary_model(builtin, dtype, 500, scales, zero_points), seeds=2, sanitize=True)
