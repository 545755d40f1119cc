"""CONV_2D against TFLite Micro: random geometry and quantization, the 1x1 fast path, grouped filters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops import OPS

ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


@dataclass
class Case:
    batches: int
    in_hw: tuple[int, int]
    in_ch: int
    out_ch: int
    filt: tuple[int, int]
    filter_in_ch: int
    stride: tuple[int, int]
    dilation: tuple[int, int]
    padding: str
    activation: str
    per_channel: bool
    bias: bool


def random_case(rng: np.random.Generator) -> Case:
    filt = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    in_hw = tuple(int(rng.integers((f - 1) * d + 1, 13)) for f, d in zip(filt, dilation))
    groups = int(rng.choice([1, 1, 2, 3]))
    filter_in_ch = int(rng.integers(1, 7))
    out_ch = groups * int(rng.integers(1, 6))
    return Case(int(rng.integers(1, 3)), (in_hw[0], in_hw[1]), groups * filter_in_ch, out_ch, filt, filter_in_ch,
                (int(rng.integers(1, 4)), int(rng.integers(1, 4))), dilation, str(rng.choice(["SAME", "VALID"])),
                str(rng.choice(ACTIVATIONS)), bool(rng.integers(2)), bool(rng.integers(4)))


def conv_model(case: Case, rng: np.random.Generator) -> bytes:
    """A single CONV_2D model with random weights, bias and quantization for `case`."""
    mb = ModelBuilder()
    in_scale, in_zp = float(rng.uniform(0.005, 0.05)), int(rng.integers(-128, 128))
    w_scales = rng.uniform(0.002, 0.02, case.out_ch if case.per_channel else 1)
    taps = case.filt[0] * case.filt[1] * case.filter_in_ch
    # An output scale that keeps most results inside int8, with some saturating.
    out_scale = float(in_scale * w_scales.mean() * 128 * np.sqrt(taps) * rng.uniform(0.5, 2.5))
    x = mb.tensor("x", [case.batches, *case.in_hw, case.in_ch], "int8", scale=in_scale, zero_point=in_zp)
    w = mb.tensor("w", [case.out_ch, *case.filt, case.filter_in_ch], "int8", scale=list(w_scales), zero_point=0,
                  axis=0, data=rng.integers(-127, 128, (case.out_ch, *case.filt, case.filter_in_ch)))
    inputs = [x, w]
    if case.bias:
        b_scales = in_scale * np.broadcast_to(w_scales, case.out_ch)
        inputs.append(mb.tensor("b", [case.out_ch], "int32", scale=list(b_scales), zero_point=0,
                                data=rng.integers(-20000, 20000, case.out_ch)))
    (sh, sw), (dh, dw) = case.stride, case.dilation
    oh = out_len(case.in_hw[0], case.filt[0], sh, dh, case.padding)
    ow = out_len(case.in_hw[1], case.filt[1], sw, dw, case.padding)
    y = mb.tensor("y", [case.batches, oh, ow, case.out_ch], "int8", scale=out_scale,
                  zero_point=int(rng.integers(-100, 80)))
    mb.op("CONV_2D", inputs, [y], padding=case.padding, stride_h=sh, stride_w=sw, dilation_h_factor=dh,
          dilation_w_factor=dw, fused_activation_function=case.activation)
    return mb.build([x], [y])


def out_len(size: int, filt: int, stride: int, dilation: int, padding: str) -> int:
    effective = (filt - 1) * dilation + 1
    return (size + stride - 1) // stride if padding == "SAME" else (size - effective) // stride + 1


def fast_path_case(rng: np.random.Generator) -> Case:
    """1x1, stride 1, one group: the matrix-product kernel (odd pixel and channel counts hit the remainders)."""
    c = random_case(rng)
    in_ch = int(rng.integers(1, 17))
    return Case(c.batches, c.in_hw, in_ch, int(rng.integers(1, 17)), (1, 1), in_ch, (1, 1), c.dilation, c.padding,
                c.activation, c.per_channel, c.bias)


CASES: list[tuple[str, Callable[[np.random.Generator], Case]]] = [
    *[(f"random{s}", random_case) for s in range(16)],
    *[(f"1x1_{s}", fast_path_case) for s in range(6)],
]


@pytest.mark.parametrize("seed", range(len(CASES)), ids=[name for name, _ in CASES])
def test_conv2d_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(1000 + seed)
    case = CASES[seed][1](rng)
    graph = check_model(conv_model(case, rng), seeds=2)
    node = graph.nodes[0]
    kernel = OPS["conv2d"].prepare(node)
    assert (kernel.folded_bias is not None) == (case.filt == (1, 1) and case.stride == (1, 1)
                                                and case.filter_in_ch == case.in_ch)


def test_conv2d_1x1_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(7)
    check_model(conv_model(fast_path_case(rng), rng), seeds=1, sanitize=True)


def test_conv2d_general_sanitized(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(8)
    case = Case(2, (7, 6), 6, 4, (3, 2), 3, (2, 1), (2, 1), "SAME", "RELU", True, True)
    check_model(conv_model(case, rng), seeds=1, sanitize=True)


def test_conv2d_macs() -> None:
    rng = np.random.default_rng(3)
    case = Case(1, (8, 8), 6, 4, (3, 3), 3, (1, 1), (1, 1), "SAME", "NONE", False, False)
    node = load_tflite(conv_model(case, rng), "m").nodes[0]
    assert OPS["conv2d"].macs(node) == 8 * 8 * 4 * 3 * 3 * 3
