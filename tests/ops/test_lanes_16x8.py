"""The 16x8 kernels for hosts with SIMD (mote.ops.lanes_16x8) against TFLite Micro, under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.ir import Graph
from mote.ops.registry import Core
from tests.ops.test_weighted_16x8 import conv_model

CONV_CASES = [dict(), dict(bias="none"), dict(per_channel=False, activation="RELU"),
              dict(stride=2, padding="VALID"), dict(dilation=2, activation="RELU"), dict(channels=1),
              dict(channels=2, stride=2, dilation=2, activation="RELU")]
DIGITS = Path(__file__).resolve().parents[2] / "models" / "int16" / "digits_cnn_16x8.tflite"


def _kernels(model: bytes, core: Core) -> list[str]:
    return [layer.kernel for layer in compile_graph(load_tflite(model, "m"), core=core).layers]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()) or "-")
def test_lanes_conv_matches_tflm(case: dict[str, object], check_model: Callable[..., Graph]) -> None:
    """mote_conv_lanes_s16 on the host: 6 filters (lanes past them), SAME borders (runs cut at both edges),
    strides, dilation, a single input channel."""
    model = conv_model("CONV_2D", np.random.default_rng(len(str(case)) + 80), **case)  # type: ignore[arg-type]
    check_model(model, seeds=2, sanitize=True)
    assert _kernels(model, Core.VECTOR) == ["mote_conv_lanes_s16"] == _kernels(model, Core.VNNI)


def test_lanes_conv_runs_the_int16_bench_model(check_model: Callable[..., Graph]) -> None:
    """The bench's 16x8 digits CNN: 8 and 16 filters, one and eight input channels."""
    model = DIGITS.read_bytes()
    check_model(model, seeds=3, sanitize=True)
    assert _kernels(model, Core.VECTOR)[:2] == ["mote_conv_lanes_s16"] * 2


def test_lanes_conv_declines_what_the_blocked_kernels_decline() -> None:
    """int32 biases (the int32 requantization) and groups keep the generic kernel."""
    rng = np.random.default_rng(8)
    for model in (conv_model("CONV_2D", rng, bias="int32"), conv_model("CONV_2D", rng, groups=2)):
        assert _kernels(model, Core.VECTOR) == ["mote_conv_s16"]
