"""L2_NORMALIZATION on int8 against TFLite Micro: rows of every size and magnitude (the inverse square root's
normalization on both sides of 2^29, the all-zero row); the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from tests.conftest import tflm_outputs


def l2_model(rows: int, depth: int, zero_point: int) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [rows, depth], "int8", scale=0.05, zero_point=zero_point)
    y = mb.tensor("y", [rows, depth], "int8", scale=1 / 128, zero_point=0)
    mb.op("L2_NORMALIZATION", [x], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("depth", [1, 3, 16, 200, 20000])
@pytest.mark.parametrize("zero_point", [0, -7, 100])
def test_reference_matches_tflm(depth: int, zero_point: int) -> None:
    rng = np.random.default_rng(depth)
    rows = 12
    model = l2_model(rows, depth, zero_point)
    graph = load_tflite(model, "m")
    x = rng.integers(-128, 128, (rows, depth)).astype(np.int8)
    x[0] = zero_point  # an all-zero row
    x[1] = np.clip(zero_point + rng.integers(-2, 3, depth), -128, 127)  # a tiny one
    node = graph.nodes[0]
    op = OPS[node.op]
    want = tflm_outputs(model, graph, {"x": x})["y"]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], want)


def test_c_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(l2_model(6, 40, 3), seeds=3, sanitize=True)
