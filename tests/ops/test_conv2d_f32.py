"""CONV_2D and DEPTHWISE_CONV_2D in float32 against TFLite Micro, bit for bit: strides, dilations, SAME
and VALID padding, groups, depth multipliers, no bias, each fused activation; several layers per model
(one C build each)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph
from mote.ops.common import out_size_and_pad
from mote.ops.registry import Core
from tests.ops.float_util import ACTIVATIONS, const, tensor, values

# (batches, in_hw, in_ch, out_ch or depth multiplier, filter, stride, dilation, padding, groups, bias)
CONV_CASES = [
    (1, (6, 7), 3, 4, (3, 3), (1, 1), (1, 1), "SAME", 1, True),
    (2, (9, 8), 4, 6, (2, 3), (2, 1), (1, 2), "VALID", 2, True),
    (1, (5, 5), 8, 19, (1, 1), (1, 1), (1, 1), "VALID", 1, False),
    (1, (7, 6), 4, 16, (3, 2), (1, 1), (1, 1), "SAME", 2, True),
    (1, (10, 6), 2, 3, (4, 2), (3, 2), (1, 1), "SAME", 1, True),
    (1, (7, 9), 1, 5, (3, 3), (1, 2), (2, 2), "SAME", 1, True),
]
DEPTHWISE_CASES = [
    (1, (6, 7), 11, 1, (3, 3), (1, 1), (1, 1), "SAME", 1, True),
    (2, (9, 8), 2, 4, (2, 3), (2, 1), (1, 2), "VALID", 1, True),
    (1, (11, 10), 1, 8, (5, 4), (2, 2), (1, 1), "SAME", 1, True),  # TFLite Micro's float one needs a bias
    (1, (5, 6), 5, 2, (3, 1), (1, 3), (2, 1), "SAME", 1, True),
]


def out_hw(case: tuple) -> tuple[int, int]:
    _, (h, w), _, _, (fh, fw), (sh, sw), (dh, dw), padding, _, _ = case
    return out_size_and_pad(h, fh, sh, dh, padding)[0], out_size_and_pad(w, fw, sw, dw, padding)[0]


def window_model(builtin: str, cases: list[tuple], rng: np.random.Generator, scale: float) -> bytes:
    mb = ModelBuilder()
    inputs, outputs = [], []
    for i, case in enumerate(cases):
        n, (h, w), c, k, (fh, fw), (sh, sw), (dh, dw), padding, groups, bias = case
        x = tensor(mb, f"x{i}", (n, h, w, c))
        out_ch = k if builtin == "CONV_2D" else c * k
        shape = (out_ch, fh, fw, c // groups) if builtin == "CONV_2D" else (1, fh, fw, out_ch)
        filt = const(mb, f"w{i}", values(rng, shape, scale))
        b = const(mb, f"b{i}", values(rng, (out_ch,), scale)) if bias else -1
        y = tensor(mb, f"y{i}", (n, *out_hw(case), out_ch))
        options = dict(padding=padding, stride_h=sh, stride_w=sw, dilation_h_factor=dh, dilation_w_factor=dw,
                       fused_activation_function=ACTIVATIONS[(i + int(scale)) % len(ACTIVATIONS)])
        if builtin == "DEPTHWISE_CONV_2D":
            options["depth_multiplier"] = k
        mb.op(builtin, [x, filt, b], [y], **options)
        inputs.append(x)
        outputs.append(y)
    return mb.build(inputs, outputs)


@pytest.mark.parametrize("scale", [1.0, 3.0])
@pytest.mark.parametrize("builtin", ["CONV_2D", "DEPTHWISE_CONV_2D"])
def test_float_convolutions_match_tflm(builtin: str, scale: float, check_model: Callable[..., Graph]) -> None:
    cases = CONV_CASES if builtin == "CONV_2D" else DEPTHWISE_CASES
    graph = check_model(window_model(builtin, cases, np.random.default_rng(int(scale)), scale), seeds=2,
                        sanitize=scale == 1.0)
    assert [n.op for n in graph.nodes] == ["conv2d" if builtin == "CONV_2D" else "depthwise_conv2d"] * len(cases)


def _kernels(model: bytes) -> list[str]:
    return [layer.kernel for layer in compile_graph(load_tflite(model, "m"), core=Core.SCALAR).layers]


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_blocked_float_conv_matches_tflm(scale: float, check_model: Callable[..., Graph]) -> None:
    """mote_conv_blocked_f32 on the scalar core: padded windows, strides, dilation, channels past a set of
    four, under the sanitizers; the grouped layers keep mote_conv_f32."""
    model = window_model("CONV_2D", CONV_CASES, np.random.default_rng(int(scale) + 10), scale)
    check_model(model, seeds=2, sanitize=scale == 1.0, core=Core.SCALAR)
    assert _kernels(model) == ["mote_conv_f32" if case[8] > 1 else "mote_conv_blocked_f32" for case in CONV_CASES]


BLOCKED_DEPTHWISE_CASES = [
    (1, (6, 7), 11, 1, (3, 3), (1, 1), (1, 1), "SAME", 1, True),
    (1, (9, 12), 8, 1, (3, 3), (2, 2), (1, 1), "SAME", 1, True),
    (2, (8, 10), 4, 1, (2, 3), (1, 1), (2, 1), "VALID", 1, True),
    (1, (11, 10), 5, 1, (5, 4), (1, 2), (1, 1), "SAME", 1, True),
    (1, (5, 6), 5, 2, (3, 1), (1, 3), (2, 1), "SAME", 1, True),
]


def test_blocked_float_depthwise_matches_tflm(check_model: Callable[..., Graph]) -> None:
    """mote_depthwise_conv_blocked_f32 on the scalar core: blocks of four pixels inside the input, border pixels
    one at a time, channels past a set of four, under the sanitizers; a depth multiplier keeps the plain kernel."""
    model = window_model("DEPTHWISE_CONV_2D", BLOCKED_DEPTHWISE_CASES, np.random.default_rng(5), 2.0)
    check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    assert _kernels(model) == ["mote_depthwise_conv_blocked_f32"] * 4 + ["mote_depthwise_conv_f32"]


def test_blocked_float_conv_declines_non_finite_weights(check_model: Callable[..., Graph]) -> None:
    """A padding tap would add 0 * inf = NaN where TFLite Micro adds nothing: such a layer keeps mote_conv_f32."""
    mb = ModelBuilder()
    x = tensor(mb, "x", (1, 5, 5, 2))
    w = values(np.random.default_rng(0), (3, 3, 3, 2), 1.0)
    w[1, 0, 0, 1] = np.inf
    y = tensor(mb, "y", (1, 5, 5, 3))
    mb.op("CONV_2D", [x, const(mb, "w", w), -1], [y], padding="SAME", stride_h=1, stride_w=1)
    model = mb.build([x], [y])
    assert _kernels(model) == ["mote_conv_f32"]
    check_model(model, seeds=1, core=Core.SCALAR)
