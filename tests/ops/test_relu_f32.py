"""RELU and RELU6 in float32 against TFLite Micro, bit for bit, on the special values too (-0.0, NaN,
infinities, the bounds): reference interpreter and generated C (sanitized)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.reference import interpret
from mote.targets.host import build_host
from tests.conftest import tflm_outputs
from tests.ops.float_util import tensor

SPECIAL = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 6.0, np.nextafter(6, 7), -1e-45, 1e-45, 5.999999,
                    -3.5, 1e38, -1e38, 2.5, 7.0], np.float32)


def relu_model(builtin: str) -> bytes:
    mb = ModelBuilder()
    x, y = tensor(mb, "x", (2, 16)), tensor(mb, "y", (2, 16))
    mb.op(builtin, [x], [y])
    return mb.build([x], [y])


@pytest.mark.parametrize("builtin", ["RELU", "RELU6"])
def test_float_relu_bits_match_tflm(builtin: str, tmp_path: Path) -> None:
    model = relu_model(builtin)
    graph = load_tflite(model, "relu")
    rng = np.random.default_rng(3)
    inputs = {"x": np.stack([SPECIAL, (rng.standard_normal(16) * 4).astype(np.float32)])}
    want = tflm_outputs(model, graph, inputs)["y"].view(np.uint32)
    binary = build_host(compile_graph(graph), tmp_path / "p", sanitize=builtin == "RELU")
    np.testing.assert_array_equal(interpret(graph, inputs)["y"].view(np.uint32), want)
    np.testing.assert_array_equal(binary.run(inputs)[0]["y"].view(np.uint32), want)
