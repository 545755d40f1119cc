"""ELU and HARD_SWISH on int8 (tables built at compile time) against TFLite Micro on every input value,
scales and zero points of every kind; the C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS
from tests.conftest import tflm_outputs


def elu_model(rng: np.random.Generator, size: int = 256, builtin: str = "ELU") -> bytes:
    mb = ModelBuilder()
    s_in = float(np.exp(rng.uniform(np.log(1e-3), np.log(0.2))))
    x = mb.tensor("x", [size], "int8", scale=s_in, zero_point=int(rng.integers(-128, 128)))
    y = mb.tensor("y", [size], "int8", scale=s_in * float(rng.uniform(0.3, 3)),
                  zero_point=int(rng.integers(-128, 128)))
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("builtin", ["ELU", "HARD_SWISH"])
@pytest.mark.parametrize("seed", range(40))
def test_every_value_matches_tflm(builtin: str, seed: int) -> None:
    model = elu_model(np.random.default_rng(seed), builtin=builtin)
    graph = load_tflite(model, "m")
    x = np.arange(-128, 128).astype(np.int8)
    node = graph.nodes[0]
    op = OPS[node.op]
    want = tflm_outputs(model, graph, {"x": x})["y"]
    np.testing.assert_array_equal(op.reference(node, op.prepare(node), [x])[0], want)


@pytest.mark.parametrize("builtin", ["ELU", "HARD_SWISH"])
def test_c_matches_tflm(builtin: str, check_model: Callable[..., object]) -> None:
    check_model(elu_model(np.random.default_rng(7), 300, builtin=builtin), seeds=2, sanitize=True)
