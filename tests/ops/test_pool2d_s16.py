"""MAX_POOL_2D and AVERAGE_POOL_2D on int16 against TFLite Micro: SAME and VALID windows, strides,
activations; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def pool_model(builtin: str, padding: str, stride: int, filt: tuple[int, int], activation: str = "NONE") -> bytes:
    h, w, c = 9, 7, 3

    def size(n: int, f: int) -> int:
        return -(-n // stride) if padding == "SAME" else -(-(n - f + 1) // stride)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, h, w, c], "int16", scale=0.001, zero_point=0)
    y = mb.tensor("y", [1, size(h, filt[0]), size(w, filt[1]), c], "int16", scale=0.001, zero_point=0)
    mb.op(builtin, [x], [y], padding=padding, stride_h=stride, stride_w=stride, filter_height=filt[0],
          filter_width=filt[1], fused_activation_function=activation)
    return mb.build([x], [y])


CASES = [("SAME", 1, (3, 3), "NONE"), ("SAME", 2, (2, 3), "RELU"), ("VALID", 2, (3, 2), "RELU6"),
         ("VALID", 1, (4, 4), "RELU_N1_TO_1")]


@pytest.mark.parametrize("builtin", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_reference_matches_tflm(builtin: str, case: tuple[str, int, tuple[int, int], str]) -> None:
    model = pool_model(builtin, *case)
    graph = load_tflite(model, "m")
    for seed in range(3):
        inputs = random_inputs(graph, seed)
        np.testing.assert_array_equal(interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"])


@pytest.mark.parametrize("builtin", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
def test_c_matches_tflm(builtin: str, check_model: Callable[..., object]) -> None:
    check_model(pool_model(builtin, "SAME", 2, (3, 3)), seeds=2, sanitize=True)
