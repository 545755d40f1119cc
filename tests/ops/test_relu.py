"""RELU and RELU6 against TFLite Micro: every int8 input value, random input/output scales and zero points."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS

BUILTINS = ("RELU", "RELU6")


def relu_model(builtin: str, rng: np.random.Generator, shape: list[int] | None = None) -> bytes:
    if shape is None:
        shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5)))]
    s_in = float(np.float32(np.exp(rng.uniform(np.log(1e-3), np.log(0.2)))))
    # RELU requantizes; RELU6 assumes (and TFLite converters produce) the same quantization.
    s_out = float(np.float32(s_in * rng.uniform(0.25, 4.0))) if rng.integers(3) else s_in
    mb = ModelBuilder()
    x = mb.tensor("x", shape, "int8", scale=s_in, zero_point=int(rng.integers(-128, 128)))
    y = mb.tensor("y", shape, "int8", scale=s_out, zero_point=int(rng.integers(-128, 128)))
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("seed", range(40))
def test_reference_matches_tflm(builtin: str, seed: int) -> None:
    model = relu_model(builtin, np.random.default_rng(seed), [2, 128])
    node = load_tflite(model, "m").nodes[0]
    x = np.arange(-128, 128, dtype=np.int8).reshape(2, 128)
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], interp.get_output(0).reshape(x.shape))


@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("seed", range(3))
def test_c_matches_tflm(builtin: str, seed: int, check_model: Callable[..., object]) -> None:
    check_model(relu_model(builtin, np.random.default_rng(100 + seed)), seeds=2, sanitize=seed == 0)
