"""row_scale (mote.ops.row_scale): rows requantized by a multiplier per row-scale byte, rounded once, against exact
arithmetic: within one step, off the exactly rounded value only within the multiplier's precision of a tie."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.inputs import random_inputs
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops import OPS
from mote.quant import quantize_multiplier
from mote.reference import interpret
from mote.targets.host import build_host


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


@pytest.mark.parametrize("low", [False, True])
def test_generated_c_matches_the_reference(low: bool, tmp_path: Path) -> None:
    """mote_row_scale_s8 on the host (sanitized) against the reference, every row-scale byte: shifts that put
    the rounding in the product's high word (t = 31 - shift >= 32, one path) and, with `low`, below it."""
    rng = np.random.default_rng(1 + low)
    real = np.exp(rng.uniform(np.log(1e-3), np.log(8.0 if low else 0.5), 256))
    if low:  # some shifts well above 0: t < 32
        real[::3] *= 2.0 ** rng.integers(1, 28, real[::3].size)  # down to t = 1: results beyond int32
    pairs = [quantize_multiplier(float(r)) for r in real]
    x = Tensor("x", (256, 24), DType.INT8, Quant((0.05,), (7,)))
    s = Tensor("s", (256, 1), DType.INT8, Quant((0.1,), (0,)))
    m = Tensor("m", (256,), DType.INT32, None, np.array([p[0] for p in pairs], np.int32))
    e = Tensor("e", (256,), DType.INT32, None, np.array([p[1] for p in pairs], np.int32))
    assert (31 - e.data.min() >= 32) and (low == (31 - e.data.max() < 32))  # type: ignore[union-attr]
    y = Tensor("y", (256, 24), DType.INT8, Quant((0.05,), (-4,)))
    graph = Graph("rows", [x, s], [y], [Node("row_scale", "rows", [x, s, m, e], [y], {})])
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        inputs["s"] = np.arange(-128, 128, dtype=np.int8).reshape(256, 1)  # every byte once
        assert np.array_equal(binary.run(inputs)[0]["y"], interpret(graph, inputs)["y"])
