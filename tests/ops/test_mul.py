"""MUL against TFLite Micro: numpy broadcasting up to 5-D, random scales and zero points, every activation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.ops.binary_util import binary_model, reference_matches_tflm


def product_scale(s_a: float, s_b: float) -> float:
    return s_a * s_b * 128  # products span about 128^2 steps


@pytest.mark.parametrize("seed", range(60))
def test_mul_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(binary_model("MUL", rng, const_b=seed % 4 == 3, output_scale=product_scale), rng)


@pytest.mark.parametrize("seed", range(6))
def test_mul_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(300 + seed)
    model = binary_model("MUL", rng, const_b=seed % 3 == 2, output_scale=product_scale)
    check_model(model, seeds=2, sanitize=seed == 0)



@pytest.mark.parametrize("ratio", [1 / 3, 1.0, 4096.0, 2.0**20])
def test_mul_c_every_requantization_shift(ratio: float, check_model: Callable[..., object]) -> None:
    """The output stage's shortcuts for left shifts (ratio < 1), none, and long right shifts: products of
    both signs, clamped or not, against TFLite Micro under the sanitizers."""
    for seed in range(3):
        rng = np.random.default_rng(400 + seed)
        model = binary_model("MUL", rng, const_b=seed == 2, output_scale=lambda s_a, s_b: s_a * s_b * ratio)
        check_model(model, seeds=2, sanitize=True)
