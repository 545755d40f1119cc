"""ADD against TFLite Micro: numpy broadcasting up to 5-D, random scales and zero points, every activation."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.ops.broadcast import plan_broadcast
from tests.ops.binary_util import binary_model, reference_matches_tflm


@pytest.mark.parametrize("seed", range(60))
def test_add_reference_matches_tflm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    reference_matches_tflm(binary_model("ADD", rng, const_b=seed % 4 == 3), rng)


@pytest.mark.parametrize("seed", range(6))
def test_add_c_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(100 + seed)
    check_model(binary_model("ADD", rng, const_b=seed % 3 == 2), seeds=2, sanitize=seed == 0)


def test_broadcast_plan_merges_dims() -> None:
    rng = np.random.default_rng(0)
    node = load_tflite(binary_model("ADD", rng), "m").nodes[0]
    node.inputs[0].shape, node.inputs[1].shape = (2, 3, 4, 5), (5,)
    plan = plan_broadcast(node)
    assert plan.shape == (24, 5) and plan.a_strides == (5, 1) and plan.b_strides == (0, 1)
    node.inputs[0].shape, node.inputs[1].shape = (2, 3, 4), (2, 3, 4)
    plan = plan_broadcast(node)
    assert plan.shape == (24,) and plan.a_strides == (1,) and plan.b_strides == (1,)
    node.inputs[0].shape, node.inputs[1].shape = (2, 1, 4), (1, 3, 1)
    plan = plan_broadcast(node)
    assert plan.shape == (2, 3, 4) and plan.a_strides == (4, 0, 1) and plan.b_strides == (0, 1, 0)
