"""REDUCE_ALL against TFLite Micro over several axes, keep_dims or not; the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from tests.conftest import tflm_outputs


def all_model(shape: list[int], axes: list[int], keep_dims: bool) -> bytes:
    kept = [1 if d in [a % len(shape) for a in axes] else n for d, n in enumerate(shape)]
    out = kept if keep_dims else [n for d, n in enumerate(shape) if d not in [a % len(shape) for a in axes]]
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "bool")
    a = mb.tensor("axes", [len(axes)], "int32", data=np.array(axes))
    y = mb.tensor("y", out, "bool")
    mb.op("REDUCE_ALL", [x, a], [y], keep_dims=keep_dims)
    return mb.build([x], [y])


@pytest.mark.parametrize("axes", [[0], [1], [-1], [0, 2], [0, 1, 2]], ids=str)
@pytest.mark.parametrize("keep_dims", [False, True])
def test_reference_matches_tflm(axes: list[int], keep_dims: bool) -> None:
    model = all_model([3, 4, 2], axes, keep_dims)
    graph = load_tflite(model, "m")
    x = np.random.default_rng(0).random((3, 4, 2)) < 0.8  # mostly true: some all-true groups
    np.testing.assert_array_equal(interpret(graph, {"x": x})["y"], tflm_outputs(model, graph, {"x": x})["y"])


def test_c_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(all_model([3, 4, 2], [1], False), seeds=3, sanitize=True)
