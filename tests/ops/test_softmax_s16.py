"""int16 SOFTMAX against TFLite Micro: input scales across the exp table's range, beta, rows of every
length; the tables built as the interpreter builds them; the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from tests.conftest import tflm_outputs


def softmax_model(scale: float, beta: float, rows: int, depth: int) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [rows, depth], "int16", scale=scale, zero_point=0)
    y = mb.tensor("y", [rows, depth], "int16", scale=1 / 32768, zero_point=0)
    mb.op("SOFTMAX", [x], [y], beta=beta)
    return mb.build([x], [y])


@pytest.mark.parametrize("scale", [1e-4, 3e-4, 1e-3, 4e-3, 2e-2])
@pytest.mark.parametrize("beta,depth", [(1.0, 10), (0.5, 3), (2.0, 40), (1.0, 1)])
def test_reference_matches_tflm(scale: float, beta: float, depth: int) -> None:
    rng = np.random.default_rng(depth)
    model = softmax_model(scale, beta, 200, depth)
    graph = load_tflite(model, "m")
    x = rng.integers(-32768, 32768, (200, depth)).astype(np.int16)
    x[:50] //= 64  # rows of small differences too: the whole exp table
    node = graph.nodes[0]
    op = OPS[node.op]
    want = tflm_outputs(model, graph, {"x": x})["y"]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], want)


def test_c_matches_tflm(check_model: Callable[..., object]) -> None:
    check_model(softmax_model(1e-3, 1.0, 16, 10), seeds=3, sanitize=True)
