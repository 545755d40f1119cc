"""LOG_SOFTMAX on int8 against TFLite Micro: input scales from the tiny (every difference within the exp's
range) to the large (only the row maximum counts), rows of every depth, the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from tests.conftest import tflm_outputs


def log_softmax_model(rows: int, depth: int, scale: float, zero_point: int) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [rows, depth], "int8", scale=scale, zero_point=zero_point)
    y = mb.tensor("y", [rows, depth], "int8", scale=16 / 256, zero_point=127)
    mb.op("LOG_SOFTMAX", [x], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("scale", [2.0**-20, 0.003, 0.05, 0.4, 1.7, 40.0])
@pytest.mark.parametrize("depth", [1, 2, 10, 77, 1000])
def test_reference_matches_tflm(scale: float, depth: int) -> None:
    rng = np.random.default_rng(depth)
    rows = 32
    model = log_softmax_model(rows, depth, scale, int(rng.integers(-128, 128)))
    graph = load_tflite(model, "m")
    x = rng.integers(-128, 128, (rows, depth)).astype(np.int8)
    x[: rows // 2] //= 8  # rows close to their maximum: many entries within the exp's range
    x[0] = 5  # a row all equal: log(depth)
    x[1] = -128
    x[1, 0] = 127  # one maximum far above the rest
    inputs = {"x": x}
    np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("scale", [0.01, 0.08, 0.9])
def test_c_matches_tflm(scale: float, check_model: Callable[..., object]) -> None:
    check_model(log_softmax_model(9, 33, scale, -3), seeds=3, sanitize=True)


def test_the_output_quantization_is_checked() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 4], "int8", scale=0.1, zero_point=0)
    y = mb.tensor("y", [2, 4], "int8", scale=1 / 256, zero_point=-128)
    mb.op("LOG_SOFTMAX", [x], [y])
    with pytest.raises(Exception, match="scale 16/256 and zero point 127"):
        load_tflite(mb.build([x], [y]), "m")
