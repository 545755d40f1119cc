"""row_scale (mote.ops.row_scale): rows requantized by a multiplier per row-scale byte, rounded once, against exact
arithmetic: within one step, off the exactly rounded value only within the multiplier's precision of a tie."""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS
from mote.quant import quantize_multiplier


def test_within_one_step_of_exact_arithmetic() -> None:
    rng = np.random.default_rng(0)
    real = np.exp(rng.uniform(np.log(1e-3), np.log(2.0), 256))
    pairs = [quantize_multiplier(float(r)) for r in real]
    x = Tensor("x", (32, 24), DType.INT8, Quant((0.05,), (7,)))
    s = Tensor("s", (32, 1), DType.INT8, Quant((0.1,), (0,)))
    m = Tensor("m", (256,), DType.INT32, None, np.array([p[0] for p in pairs], np.int32))
    e = Tensor("e", (256,), DType.INT32, None, np.array([p[1] for p in pairs], np.int32))
    y = Tensor("y", (32, 24), DType.INT8, Quant((0.05,), (-4,)))
    node = Node("row_scale", "rows", [x, s, m, e], [y], {})
    op = OPS["row_scale"]
    op.check(node)
    data = rng.integers(-128, 128, (32, 24)).astype(np.int8)
    rows = rng.integers(-128, 128, (32, 1)).astype(np.int8)
    got = op.reference(node, op.prepare(node), [data, rows])[0].astype(np.int64)
    exact = (data.astype(np.float64) - 7) * real[rows.view(np.uint8).astype(np.int64)] - 4
    want = np.clip(np.floor(exact + 0.5), -128, 127)
    assert np.all(np.abs(got - want) <= 1)
    near = np.abs(exact - np.floor(exact) - 0.5) < 1e-6
    assert not np.any((got != want) & ~near)
