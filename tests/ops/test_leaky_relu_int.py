"""LEAKY_RELU on int8 and int16 against TFLite Micro: every input value, random scales, zero points and alphas."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS


def leaky_model(dtype: str, rng: np.random.Generator, size: int) -> bytes:
    s_in = float(np.exp(rng.uniform(np.log(1e-3), np.log(0.2))))
    s_out = s_in * float(rng.uniform(0.3, 3.0))
    zero = (lambda: int(rng.integers(-128, 128))) if dtype == "int8" else (lambda: 0)
    mb = ModelBuilder()
    x = mb.tensor("x", [size], dtype, scale=s_in, zero_point=zero())
    y = mb.tensor("y", [size], dtype, scale=s_out, zero_point=zero())
    mb.op("LEAKY_RELU", [x], [y], alpha=float(rng.choice([0.01, 0.1, 0.2, 0.3, 1.5])))
    return mb.build([x], [y])


@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.parametrize("seed", range(12))
def test_reference_matches_tflm_on_every_value(dtype: str, seed: int) -> None:
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1, 1 if dtype == "int8" else 7).astype(dtype)
    model = leaky_model(dtype, np.random.default_rng(seed), x.size)
    node = load_tflite(model, "m").nodes[0]
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 20)
    interp.set_input(x, 0)
    interp.invoke()
    op = OPS[node.op]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], interp.get_output(0))


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(leaky_model(dtype, np.random.default_rng(99), 300), seeds=2, sanitize=True)
