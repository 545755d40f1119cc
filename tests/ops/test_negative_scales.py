"""Per-channel int8 weights with negative scales (and biases scaled alike), as some converters write them
(mcunet's exported models): TFLite Micro multiplies the scales into negative requantization multipliers,
and mote (which folds the signs into the weights, mote.frontend.signed_scales) must give the same values,
on the conv kernels (3x3, pointwise) and depthwise."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph

IN_SCALE = 0.05


def signed_scales(rng: np.random.Generator, channels: int) -> np.ndarray:
    """Per-channel scales, about a third of them negative (at least one of each sign)."""
    scales = rng.uniform(0.002, 0.02, channels)
    signs = np.where(rng.random(channels) < 0.35, -1.0, 1.0)
    signs[0], signs[-1] = -1.0, 1.0
    return scales * signs


def conv_model(rng: np.random.Generator, filt: int, channels: int, depthwise: bool, low: int = -127) -> bytes:
    """x -> CONV_2D or DEPTHWISE_CONV_2D (SAME) with per-channel weights of both signs of scale, and a bias."""
    mb = ModelBuilder()
    in_ch = channels if depthwise else 5
    x = mb.tensor("x", [1, 6, 7, in_ch], "int8", scale=IN_SCALE, zero_point=-4)
    w_scales = signed_scales(rng, channels)
    shape = [1, filt, filt, channels] if depthwise else [channels, filt, filt, in_ch]
    data = rng.integers(-127, 128, shape)
    data.flat[0] = low  # channel 0 has a negative scale
    w = mb.tensor("w", shape, "int8", scale=list(w_scales), zero_point=0, axis=3 if depthwise else 0, data=data)
    b = mb.tensor("b", [channels], "int32", scale=list(IN_SCALE * w_scales), zero_point=0,
                  data=rng.integers(-3000, 3000, channels))
    y = mb.tensor("y", [1, 6, 7, channels], "int8", scale=0.08, zero_point=3)
    options = dict(padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1, dilation_w_factor=1,
                   fused_activation_function="NONE")
    if depthwise:
        mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], depth_multiplier=1, **options)
    else:
        mb.op("CONV_2D", [x, w, b], [y], **options)
    return mb.build([x], [y])


@pytest.mark.parametrize("filt, channels, depthwise", [(3, 6, False), (1, 16, False), (3, 8, True)])
def test_negative_per_channel_scales_match_tflite_micro(check_model: Callable[..., Graph], filt: int,
                                                        channels: int, depthwise: bool) -> None:
    rng = np.random.default_rng(filt * 100 + channels)
    model = conv_model(rng, filt, channels, depthwise)
    written = schema.ModelT.InitFromPackedBuf(bytearray(model), 0).subgraphs[0].tensors[1].quantization.scale
    assert min(written) < 0 < max(written)
    graph = check_model(model)
    w = graph.nodes[0].inputs[1]  # the signs moved into the weights
    assert w is not None and w.quant is not None and min(w.quant.scale) > 0


def test_weight_without_a_negation_is_refused() -> None:
    """-128 in a channel whose scale is negative: its negation does not fit int8, so the model is refused."""
    with pytest.raises(UnsupportedError) as info:
        load_tflite(conv_model(np.random.default_rng(1), 3, 4, False, low=-128), "m")
    assert "-128" in str(info.value) and "\n" not in str(info.value)
