"""The DSP-extension kernels (mote.ops.dsp_kernels): their weight layout and 32-bit output stage against
numpy, and the C (the portable form of mote_dsp.h, sanitized) bit-exact with TFLite Micro on odd shapes.
The Armv7E-M assembly runs in tests/targets/test_cortexm_dsp.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.ops.dsp_kernels import dsp_stage, dsp_words, stage_rows
from mote.ops.registry import Core
from mote.quant import multiply_by_quantized_multiplier
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case, conv_chain_model
from tests.ops.test_depthwise_conv2d import Case as DwCase
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_fully_connected import Case as FcCase
from tests.ops.test_fully_connected import fc_model


def _sxtb16(words: np.ndarray, rotate: int) -> tuple[np.ndarray, np.ndarray]:
    """SXTB16 of each word rotated right by `rotate` bits: its (low, high) int16 halves."""
    w = words.astype(np.uint64)
    r = ((w >> rotate) | (w << (32 - rotate))) & 0xFFFFFFFF if rotate else w
    return (r & 0xFF).astype(np.uint8).view(np.int8).astype(np.int64), \
        ((r >> 16) & 0xFF).astype(np.uint8).view(np.int8).astype(np.int64)


def _halves(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = words.astype(np.uint32)
    return (w & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64), \
        (w >> 16).astype(np.uint16).view(np.int16).astype(np.int64)


@pytest.mark.parametrize("block", [2, 4])
def test_weight_words_meet_widened_activations_in_dot_products(block: int) -> None:
    """SMLAD of the SXTB16-widened activation words with the packed weight words is the dot product."""
    rng = np.random.default_rng(block)
    rows, depth = 7, 23
    w = rng.integers(-128, 128, (rows, depth))
    x = rng.integers(-128, 128, depth)
    words = dsp_words(w, block).reshape(-1, (depth + 3) // 4, block, 2)  # [blocks][groups][row][2]
    xw = np.zeros((depth + 3) // 4 * 4, np.int64)
    xw[:depth] = x
    packed = xw.astype(np.int8).view(np.uint32)  # one little-endian word per group
    even_lo, even_hi = _sxtb16(packed, 0)
    odd_lo, odd_hi = _sxtb16(packed, 8)
    for r in range(rows):
        we_lo, we_hi = _halves(words[r // block, :, r % block, 0])
        wo_lo, wo_hi = _halves(words[r // block, :, r % block, 1])
        acc = (even_lo * we_lo + even_hi * we_hi + odd_lo * wo_lo + odd_hi * wo_hi).sum()
        assert acc == int(w[r] @ x)
    assert not words[rows // block:, :, rows % block:].any() if rows % block else True  # padding rows are zero


def _emulate(acc: np.ndarray, rows: np.ndarray, channel: np.ndarray) -> np.ndarray:
    """mote_dsp_requantize's steps in int64, each asserted to fit int32 as the C computes them."""
    m, left, rnd, right, neg = (rows[channel, k].astype(np.int64) for k in range(5))
    a = acc.astype(np.int64) << left
    assert (np.abs(a) < 1 << 31).all()
    y = (a * m + (1 << 31)) >> 32
    r = y + rnd + np.where(y < 0, neg, 0)
    assert (np.abs(r) < 1 << 31).all()
    return r >> right


def test_output_stage_is_tflites_multiply_by_quantized_multiplier() -> None:
    rng = np.random.default_rng(5)
    n = 64
    multiplier = rng.integers(1 << 30, 1 << 31, n)
    shift = rng.integers(-20, 3, n)
    bound = 1 << 20
    rows = dsp_stage(multiplier, shift, bound)
    assert rows is not None
    acc = np.concatenate([rng.integers(-bound, bound + 1, 20000), [-bound, bound, 0, -1, 1]])
    channel = rng.integers(0, n, acc.size)
    expected = multiply_by_quantized_multiplier(acc.astype(np.int32), multiplier[channel], shift[channel])
    assert np.array_equal(_emulate(acc, rows, channel), expected)


def test_output_stage_refuses_what_could_overflow() -> None:
    big = np.array([(1 << 31) - 1])
    assert dsp_stage(big, np.array([3]), 1 << 29) is None  # the left shift overflows
    assert dsp_stage(big, np.array([-2]), (1 << 31) - 1) is None  # y + round reaches 2^31
    assert dsp_stage(big, np.array([0]), 1 << 30) is None  # the doubled accumulator overflows
    assert dsp_stage(big, np.array([0]), (1 << 30) - 1) is not None  # no rounding: y fits
    assert dsp_stage(big, np.array([-1]), 1 << 20) is not None


CONV_CASES = [
    # odd pixel count, odd channel count, taps not a multiple of 4, padding, stride 2
    Case(1, (7, 5), 3, 5, (3, 3), 3, (1, 1), (1, 1), "VALID", "RELU", True, True),
    Case(2, (6, 7), 6, 7, (3, 2), 6, (2, 1), (1, 2), "SAME", "NONE", True, True),
    Case(1, (5, 5), 8, 6, (1, 1), 8, (1, 1), (1, 1), "VALID", "RELU6", False, False),  # pointwise, direct rows
    Case(1, (4, 3), 5, 9, (1, 1), 5, (2, 2), (1, 1), "SAME", "NONE", True, True),  # 1x1 with a gathered window
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_matches_tflm_sanitized(case: Case, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(11)
    graph = check_model(conv_chain_model([case], rng), seeds=2, sanitize=True, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_conv_dsp_s8"  # type: ignore[attr-defined]


def test_conv_left_shift(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(12)
    graph = check_model(conv_chain_model([CONV_CASES[1]], rng, gain=3.0), seeds=2, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_conv_dsp_s8"  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", [DwCase(2, (7, 8), 8, 1, (3, 3), (2, 1), (1, 1), "SAME", "RELU6", True, True),
                                  DwCase(1, (5, 6), 12, 1, (3, 3), (1, 1), (1, 1), "VALID", "NONE", True, False)])
def test_depthwise_matches_tflm_sanitized(case: DwCase, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(13)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_depthwise_conv_dsp_s8"  # type: ignore[attr-defined]


def test_depthwise_declines_channels_not_a_multiple_of_four() -> None:
    rng = np.random.default_rng(14)
    from mote.frontend.tflite import load_tflite

    graph = load_tflite(depthwise_model(DwCase(1, (5, 5), 6, 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, True),
                                        rng), "dw")
    assert chosen(graph.nodes[0], Core.DSP) != "mote_depthwise_conv_dsp_s8"


@pytest.mark.parametrize("case", [FcCase((3, 13), 13, 7, False, "RELU", True, 0, True),
                                  FcCase((1, 20), 20, 8, False, "NONE", False, 5, True)])
def test_fully_connected_matches_tflm_sanitized(case: FcCase, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(15)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_fully_connected_dsp_s8"  # type: ignore[attr-defined]


def test_pruned_channels_take_a_constant_output_row() -> None:
    """A channel whose weights are all zero, with a bias too large for the doubled shift of the output stage (as
    in VWW's pointwise layers), gets a row that yields its requantized bias for every input; the other channels
    keep their rows, and every row computes TFLite's MultiplyByQuantizedMultiplier."""
    rng = np.random.default_rng(16)
    weights = rng.integers(-128, 128, (4, 10))
    weights[1] = 0
    bias = np.array([1000, -(1 << 30), 5, 1 << 30 | 77], np.int64)
    weights[3] = 0
    multiplier = rng.integers(1 << 30, 1 << 31, 4)
    shift = np.array([-9, -27, -1, -30])
    rows = stage_rows(multiplier, shift, bias, weights)
    assert rows is not None and dsp_stage(multiplier, shift, np.abs(bias) + 128 * np.abs(weights).sum(1)) is None
    x = rng.integers(-128, 128, (200, 10))
    acc = bias[None, :] + x @ weights.T
    channel = np.broadcast_to(np.arange(4), acc.shape).reshape(-1)
    got = np.clip(_emulate(acc.reshape(-1), rows, channel), -128, 127)
    want = np.clip(multiply_by_quantized_multiplier(acc.reshape(-1).astype(np.int32), multiplier[channel],
                                                    shift[channel]), -128, 127)
    assert np.array_equal(got, want)
