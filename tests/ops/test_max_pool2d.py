"""MAX_POOL_2D against TFLite Micro: random windows, strides, paddings and activations."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.ops.test_avg_pool2d import pool_model


@pytest.mark.parametrize("seed", range(16))
def test_max_pool2d_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    check_model(pool_model("MAX_POOL_2D", np.random.default_rng(5000 + seed)), seeds=3)


def test_max_pool2d_sanitized(check_model: Callable[..., object]) -> None:
    check_model(pool_model("MAX_POOL_2D", np.random.default_rng(7)), seeds=1, sanitize=True)
