"""table_mean (mote.ops.table_mean): the mean of a tabulated function over the last axis, against exact arithmetic:
within one step, and off the exactly rounded value only where the exact mean lies within the table's rounding
(2^-11 of a step per value) of a rounding boundary."""

from __future__ import annotations

import numpy as np
import pytest

from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS


@pytest.mark.parametrize("depth", [1, 5, 64, 1000])
def test_within_the_table_rounding_of_the_exact_mean(depth: int) -> None:
    rng = np.random.default_rng(depth)
    steps = rng.normal(0, 40, 256)  # the function's value at each byte, in output steps
    fraction = 10
    table = np.round(steps * 2**fraction).astype(np.int32)
    x = Tensor("x", (16, depth), DType.INT8, Quant((0.1,), (0,)))
    t = Tensor("table", (256,), DType.INT32, None, table)
    y = Tensor("y", (16, 1), DType.INT8, Quant((0.5,), (-3,)))
    node = Node("table_mean", "mean", [x, t], [y], {"fraction": fraction})
    op = OPS["table_mean"]
    op.check(node)
    data = rng.integers(-128, 128, (16, depth)).astype(np.int8)
    got = op.reference(node, op.prepare(node), [data])[0].reshape(-1).astype(np.int64)
    real = steps[data.view(np.uint8)].mean(axis=1) - 3
    want = np.clip(np.floor(real + 0.5), -128, 127)
    assert np.all(np.abs(got - want) <= 1)
    near = np.abs(real - np.floor(real) - 0.5) <= 2.0 ** -(fraction + 1)
    assert not np.any((got != want) & ~near)
