"""SUB against TFLite Micro: numpy broadcasting up to 5-D, random scales and zero points, every activation.

SUB shares ADD's arithmetic; exact halves (scales 0.05 and 0.02, output 0.1) pin its multipliers down.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.ops.binary_util import binary_model, reference_matches_tflm


@pytest.mark.parametrize("seed", range(60))
def test_sub_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(binary_model("SUB", rng, const_b=seed % 4 == 3), rng)


@pytest.mark.parametrize("seed", range(6))
def test_sub_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(200 + seed)
    check_model(binary_model("SUB", rng, const_b=seed % 3 == 2), seeds=2, sanitize=seed == 0)



def test_sub_exact_halves_match_tflm() -> None:
    """Every int8 pair through scales whose float32 and double quotients differ (0.02 / 0.1): results on
    exact halves round as TFLite Micro's do only with its multipliers."""
    from tflite_micro.python.tflite_micro import runtime

    from mote.frontend.tflite import load_tflite
    from mote.frontend.tflite_writer import ModelBuilder
    from mote.reference import interpret

    grid_a, grid_b = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128))
    xa, xb = grid_a.ravel().astype(np.int8), grid_b.ravel().astype(np.int8)
    mb = ModelBuilder()
    a = mb.tensor("a", [xa.size], "int8", scale=0.05, zero_point=3)
    b = mb.tensor("b", [xb.size], "int8", scale=0.02, zero_point=-4)
    y = mb.tensor("y", [xa.size], "int8", scale=0.1, zero_point=0)
    mb.op("SUB", [a, b], [y], fused_activation_function="NONE")
    model = mb.build([a, b], [y])
    interp = runtime.Interpreter.from_bytes(model, arena_size=1 << 22)
    interp.set_input(xa, 0)
    interp.set_input(xb, 1)
    interp.invoke()
    got = interpret(load_tflite(model, "sub"), {"a": xa, "b": xb})["y"]
    np.testing.assert_array_equal(got.ravel(), interp.get_output(0).ravel())
