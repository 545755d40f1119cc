"""The integer LayerNorm / RMSNorm kernel (mote.ops.layer_norm_int) against exact arithmetic: every output within
one step of the real value rounded, and off it only where the real value lies within 2^-10 of a step of a rounding
boundary (the bound the module states); rows of every kind (constant rows, extreme values, wide and narrow)."""

from __future__ import annotations

import numpy as np
import pytest

from mote.ir import DType, Node, Quant, Tensor
from mote.ops import OPS


def norm_node(depth: int, rows: int, rms: bool, rng: np.random.Generator, eps: float = 1e-5) -> Node:
    s_x, s_y = float(rng.uniform(0.005, 0.1)), float(rng.uniform(0.01, 0.06))
    x = Tensor("x", (rows, depth), DType.INT8, Quant((s_x,), (int(rng.integers(-20, 20)),)))
    gamma = Tensor("gamma", (depth,), DType.FLOAT32, None, rng.normal(1, 0.5, depth).astype(np.float32))
    beta = None if rms else Tensor("beta", (depth,), DType.FLOAT32, None, rng.normal(0, 0.5, depth).astype(np.float32))
    y = Tensor("y", (rows, depth), DType.INT8, Quant((s_y,), (int(rng.integers(-10, 10)),)))
    return Node("layer_norm", "norm", [x, gamma, beta], [y], {"epsilon": eps, "rms": rms})


def exact(node: Node, x: np.ndarray) -> np.ndarray:
    """The real result in output steps, before rounding, in float64."""
    xt, g, b, y = node.inputs[0], node.inputs[1], node.inputs[2], node.outputs[0]
    assert xt is not None and g is not None and g.data is not None
    v = (x.astype(np.float64) - xt.zero_point) * float(np.float32(xt.scale))
    if not node.attrs["rms"]:
        v = v - v.mean(axis=-1, keepdims=True)
    eps = float(np.float32(node.attrs["epsilon"]))
    n = v / np.sqrt((v * v).mean(axis=-1, keepdims=True) + eps) * g.data.astype(np.float64)
    if b is not None and b.data is not None:
        n = n + b.data.astype(np.float64)
    return n / float(np.float32(y.scale)) + y.zero_point


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
@pytest.mark.parametrize("depth", [1, 7, 16, 64, 768])
def test_within_the_stated_bound_of_exact_arithmetic(rms: bool, depth: int) -> None:
    rng = np.random.default_rng(depth + rms)
    node = norm_node(depth, 24, rms, rng)
    op = OPS["layer_norm"]
    op.check(node)
    x = rng.integers(-128, 128, (24, depth)).astype(np.int8)
    x[0] = 5  # a constant row: LayerNorm's variance 0, epsilon alone
    x[1] = -128
    x[2, ::2], x[2, 1::2] = -128, 127
    x[3] = rng.integers(-2, 3, depth)  # a narrow row
    got = op.reference(node, op.prepare(node), [x])[0].astype(np.int64)
    real = exact(node, x)
    want = np.clip(np.floor(real + 0.5), -128, 127)
    off = got != want
    assert np.all(np.abs(got - want) <= 1)
    near = np.abs(real - np.floor(real) - 0.5) < 2.0**-10
    assert not np.any(off & ~near), f"{int(np.count_nonzero(off & ~near))} outputs off outside the bound"
