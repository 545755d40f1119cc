"""AVERAGE_POOL_2D and MAX_POOL_2D in float32 against TFLite Micro, bit for bit: SAME padding (clipped
windows), strides, each fused activation; several layers per model (one C build each)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from mote.ops.common import out_size_and_pad
from tests.ops.float_util import ACTIVATIONS, tensor

# (batches, in_hw, channels, filter, stride, padding)
CASES = [(1, (6, 7), 3, (3, 3), (1, 1), "SAME"), (2, (9, 8), 4, (2, 3), (2, 1), "VALID"),
         (1, (11, 10), 1, (5, 4), (2, 3), "SAME"), (1, (4, 4), 17, (4, 4), (1, 1), "VALID")]


def pool_model(builtin: str, scale: float) -> bytes:
    mb = ModelBuilder()
    inputs, outputs = [], []
    for i, (n, (h, w), c, (fh, fw), (sh, sw), padding) in enumerate(CASES):
        x = tensor(mb, f"x{i}", (n, h, w, c))
        oh, ow = out_size_and_pad(h, fh, sh, 1, padding)[0], out_size_and_pad(w, fw, sw, 1, padding)[0]
        y = tensor(mb, f"y{i}", (n, oh, ow, c))
        mb.op(builtin, [x], [y], padding=padding, stride_h=sh, stride_w=sw, filter_height=fh, filter_width=fw,
              fused_activation_function=ACTIVATIONS[(i + int(scale)) % len(ACTIVATIONS)])
        inputs.append(x)
        outputs.append(y)
    return mb.build(inputs, outputs)


@pytest.mark.parametrize("builtin", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_float_pools_match_tflm(builtin: str, check_model: Callable[..., Graph]) -> None:
    graph = check_model(pool_model(builtin, 1.0), seeds=3, sanitize=builtin == "MAX_POOL_2D")
    assert len(graph.nodes) == len(CASES)
