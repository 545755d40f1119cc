"""Quantization parameters as older TFLite converters wrote them, which TFLite Micro still runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mote.frontend.tflite import load_tflite
from mote.ir import Graph
from tests.frontend.test_tflite_validation import B, conv_model, edited, tensor


def test_bias_scales_along_the_filters_channel_axis(check_model: Callable[..., Graph]) -> None:
    """A conv's 1-D per-channel bias whose quantized dimension is the filter's output-channel axis (3): the
    scales apply element by element, as TFLite Micro reads them."""

    def legacy_bias_axis(model: Any) -> None:
        tensor(model, B).quantization.quantizedDimension = 3

    model = edited(conv_model(), legacy_bias_axis)
    bias = load_tflite(model, "m").nodes[0].inputs[2]
    assert bias is not None and bias.quant is not None and bias.quant.axis == 0
    check_model(model)
