"""MEAN in float32 against TFLite Micro, bit for bit: TFLite's 4-D axes (1, 2) kernel and the general
one, keep_dims or not, negative and repeated axes, long reductions (where the order of a sum shows)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from tests.ops.float_util import tensor

# (input shape, axes, keep_dims)
CASES = [((1, 7, 9, 5), (1, 2), True), ((2, 6, 8, 3), (2, 1), False), ((3, 4, 5), (-1,), False),
         ((2, 3, 4, 5), (0, 2, 2), True), ((1, 300), (1,), False), ((4, 5, 6), (0, 2), True)]


def mean_model() -> bytes:
    mb = ModelBuilder()
    inputs, outputs = [], []
    for i, (shape, axes, keep) in enumerate(CASES):
        x = tensor(mb, f"x{i}", shape)
        a = mb.tensor(f"axes{i}", [len(axes)], "int32", data=np.array(axes, np.int32))
        resolved = {ax % len(shape) for ax in axes}
        out = [1 if d in resolved else n for d, n in enumerate(shape) if keep or d not in resolved]
        y = tensor(mb, f"y{i}", out)
        mb.op("MEAN", [x, a], [y], keep_dims=keep)
        inputs.append(x)
        outputs.append(y)
    return mb.build(inputs, outputs)


def test_float_mean_matches_tflm(check_model: Callable[..., Graph]) -> None:
    graph = check_model(mean_model(), seeds=3, sanitize=True)
    assert [n.op for n in graph.nodes] == ["mean"] * len(CASES)
