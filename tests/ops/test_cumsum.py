"""CUMSUM on float32 and int8 against TFLite Micro: every axis, exclusive and reverse; the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def cumsum_model(dtype: str, shape: list[int], axis: int, exclusive: bool = False, reverse: bool = False) -> bytes:
    q_in = {"scale": 0.04, "zero_point": -7} if dtype == "int8" else {}
    q_out = {"scale": 0.15, "zero_point": 3} if dtype == "int8" else {}
    mb = ModelBuilder()
    x = mb.tensor("x", shape, dtype, **q_in)
    a = mb.tensor("axis", [], "int32", data=np.array(axis))
    y = mb.tensor("y", shape, dtype, **q_out)
    mb.op("CUMSUM", [x, a], [y], exclusive=exclusive, reverse=reverse)
    return mb.build([x], [y])


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, False), (False, True), (True, True)])
def test_reference_matches_tflm(dtype: str, axis: int, exclusive: bool, reverse: bool) -> None:
    model = cumsum_model(dtype, [3, 5, 4], axis, exclusive, reverse)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, 0)
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(cumsum_model(dtype, [2, 6, 3], 1, exclusive=True, reverse=True), seeds=2, sanitize=True)
    check_model(cumsum_model(dtype, [4, 5], 0), seeds=1, sanitize=True)
