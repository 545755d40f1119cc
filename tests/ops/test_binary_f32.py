"""ADD, SUB and MUL in float32 against TFLite Micro, bit for bit: same shapes, broadcasting both ways
(up to 5-D), a scalar, each fused activation (values large enough to reach RELU6's bound)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from tests.ops.float_util import ACTIVATIONS, const, tensor, values

# (a shape, b shape, b constant)
CASES = [((2, 3, 4), (2, 3, 4), False), ((1, 5, 1, 3), (4, 1), False), ((3,), (2, 2, 3), True),
         ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1), False), ((6,), (), True)]


def binary_model(builtin: str, rng: np.random.Generator) -> bytes:
    mb = ModelBuilder()
    inputs, outputs = [], []
    for i, (a_shape, b_shape, b_const) in enumerate(CASES):
        a = tensor(mb, f"a{i}", a_shape)
        b = const(mb, f"b{i}", values(rng, b_shape, 8.0)) if b_const else tensor(mb, f"b{i}", b_shape)
        y = tensor(mb, f"y{i}", np.broadcast_shapes(a_shape, b_shape))
        mb.op(builtin, [a, b], [y], fused_activation_function=ACTIVATIONS[i % len(ACTIVATIONS)])
        inputs.append(a)
        if not b_const:
            inputs.append(b)
        outputs.append(y)
    return mb.build(inputs, outputs)


@pytest.mark.parametrize("builtin", ["ADD", "SUB", "MUL"])
def test_float_binary_ops_match_tflm(builtin: str, check_model: Callable[..., Graph]) -> None:
    graph = check_model(binary_model(builtin, np.random.default_rng(7)), seeds=3, sanitize=builtin == "SUB")
    assert [n.op for n in graph.nodes] == [builtin.lower()] * len(CASES)
