"""SUB against TFLite Micro: numpy broadcasting up to 5-D, random scales and zero points, every activation.

SUB differs from ADD only in computing its multipliers in float32 (see mote/ops/sub.py).
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

