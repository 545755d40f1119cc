"""MEAN against TFLite Micro: 1-5-D, random axes (negative, duplicated), keep_dims both, requantizing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS


def mean_model(rng: np.random.Generator, shape: list[int] | None = None, axes: list[int] | None = None,
               keep_dims: bool | None = None, out_over_in: float | None = None) -> bytes:
    if shape is None:
        shape = [int(rng.integers(1, 7)) for _ in range(int(rng.integers(1, 6)))]
    rank = len(shape)
    if axes is None:
        chosen = [int(a) for a in rng.permutation(rank)[:int(rng.integers(1, rank + 1))]]
        axes = [a - rank if rng.integers(2) else a for a in chosen]  # negative axes
        if rng.integers(4) == 0:
            axes.append(axes[0])  # a duplicate counts once
    keep = bool(rng.integers(2)) if keep_dims is None else keep_dims
    reduced = {a % rank for a in axes}
    out_shape = [1 if d in reduced else n for d, n in enumerate(shape)] if keep else \
        [n for d, n in enumerate(shape) if d not in reduced]
    s_in = float(np.float32(rng.uniform(0.005, 0.1)))
    # Same quantization in and out (the usual converter output) or a requantizing mean.
    if out_over_in is None:
        out_over_in = 1.0 if rng.integers(3) == 0 else float(np.exp(rng.uniform(-2.5, 2.5)))
    s_out = float(np.float32(s_in * out_over_in))
    zp_in = int(rng.integers(-128, 128))
    zp_out = zp_in if s_out == s_in else int(rng.integers(-128, 128))
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=s_in, zero_point=zp_in)
    a = mb.tensor("axes", [len(axes)], "int32", data=np.array(axes, dtype=np.int32))
    y = mb.tensor("y", out_shape, "int8", scale=s_out, zero_point=zp_out)
    mb.op("MEAN", [x, a], [y], keep_dims=keep)
    return mb.build([x], [y])


def reference_matches_tflm(model: bytes, rng: np.random.Generator) -> None:
    node = load_tflite(model, "m").nodes[0]
    x = rng.integers(-128, 128, node.inputs[0].shape, dtype=np.int8)
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x, node.inputs[1].data])[0],
                                  interp.get_output(0).reshape(node.outputs[0].shape))


@pytest.mark.parametrize("seed", range(60))
def test_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(mean_model(rng), rng)


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_reference_matches_tflm_global_average(keep_dims: bool, seed: int) -> None:
    """4-D over axes (1, 2), the global-average-pooling form (the float kernel's special case)."""
    rng = np.random.default_rng(seed)
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 9))]
    reference_matches_tflm(mean_model(rng, shape, [1, 2] if seed % 2 else [2, 1], keep_dims), rng)


@pytest.mark.parametrize("seed", range(5))
def test_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    check_model(mean_model(np.random.default_rng(100 + seed)), seeds=2, sanitize=seed == 0)


def test_c_global_average(check_model: Callable[..., object]) -> None:
    check_model(mean_model(np.random.default_rng(9), [1, 7, 5, 12], [1, 2], True), seeds=2)


@pytest.mark.parametrize("out_over_in", [1.0, 2.0**-10, 2.0**22, 2.0**26])
def test_folding_one_over_n(out_over_in: float) -> None:
    """4096 elements: folding 1/4096 into the multiplier shifts by 12, or by 31 + shift when that is less."""
    rng = np.random.default_rng(11)
    model = mean_model(rng, [1, 64, 64, 2], [1, 2], False, out_over_in)
    for _ in range(3):
        reference_matches_tflm(model, rng)
