"""int16 LOGISTIC and TANH against TFLite Micro on every int16 input: power-of-two input scales (the
interpreter's shortcut) and others; the measured table; the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from mote.ops.sigmoid_table import SIGMOID_TABLE
from tests.conftest import tflm_outputs


def sigmoid_model(builtin: str, scale: float, size: int = 1 << 16) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [size], "int16", scale=scale, zero_point=0)
    y = mb.tensor("y", [size], "int16", scale=2**-15, zero_point=0)
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


SCALES = [2**-12, 2**-11, 2**-10, 3e-4, 1e-3, 5e-5, 2.5e-3]


@pytest.mark.parametrize("builtin", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("scale", SCALES)
def test_every_input_matches_tflm(builtin: str, scale: float) -> None:
    model = sigmoid_model(builtin, scale)
    graph = load_tflite(model, "m")
    x = np.arange(-32768, 32768).astype(np.int16)
    node = graph.nodes[0]
    op = OPS[node.op]
    got = op.reference(node, op.prepare(node), [x])[0]
    np.testing.assert_array_equal(got, tflm_outputs(model, graph, {"x": x})["y"])


def test_the_table_is_a_sigmoid() -> None:
    table = np.array(SIGMOID_TABLE)
    exact = 65536 / (1 + np.exp(-np.arange(256) / 24))
    assert len(table) == 256 and np.all(np.diff(table) >= 0) and np.abs(table - np.minimum(exact, 65535)).max() < 1.5


@pytest.mark.parametrize("builtin", ["LOGISTIC", "TANH"])
def test_c_matches_tflm(builtin: str, check_model: Callable[..., object]) -> None:
    check_model(sigmoid_model(builtin, 3e-4, 4096), seeds=2, sanitize=True)
    check_model(sigmoid_model(builtin, 2**-12, 4096), seeds=1, sanitize=True)
