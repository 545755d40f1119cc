"""benchmarks/layer_shapes.py's fully connected rows on the rv32 virtual platform: bit-exact with TFLite Micro and
at most the bench's goal of instructions per MAC (MLPerf Tiny's VWW 256 -> 2 and KWS 64 -> 12 among them), so
that a kernel change that loses it fails here, not only in the bench's table."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_same, tflm_outputs

from benchmarks.layer_shapes import GOAL, LAYERS, Layer, layer_model, measure_layer
from mote.frontend.tflite import load_tflite
from mote.inputs import random_inputs

FULLY_CONNECTED = [layer for layer in LAYERS if layer.op == "fc" and "logits" not in layer.label]


@pytest.mark.parametrize("layer", FULLY_CONNECTED, ids=lambda layer: layer.label)
def test_fully_connected_shapes_within_the_goal(layer: Layer, tmp_path: Path) -> None:
    row = measure_layer(layer, tmp_path)
    assert float(row["per_mac"]) <= GOAL, f"{layer.label}: {row['per_mac']:.2f} instructions per MAC ({row['kernel']})"
    data = layer_model(layer)
    graph = load_tflite(data, "layer")
    inputs = random_inputs(graph, 0)
    assert_same(row["outputs"], tflm_outputs(data, graph, inputs), f"{layer.label} on rv32")  # type: ignore[arg-type]
