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

