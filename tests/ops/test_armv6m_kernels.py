"""The Armv6-M kernels (mote.ops.armv6m_kernels): the pair-word layout against numpy (the MULS, ASRS, ADCS steps
emulated on 32-bit words), and the C (the portable form of mote_armv6m.h, sanitized) bit-exact with TFLite Micro on
odd shapes. The Armv6-M assembly runs in tests/targets/test_cortexm_armv6m.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from conftest import MLPERF_TINY

from mote.frontend.tflite import load_tflite
from mote.ops import OPS
from mote.ops.armv6m_kernels import UNROLL, bias_and_reach, padded_pairs, pair_words
from mote.ops.armv6m_stage import single_emulate, single_rows
from mote.ops.registry import Core
from mote.quant import multiply_by_quantized_multiplier
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case, conv_chain_model, conv_model
from tests.ops.test_depthwise_conv2d import Case as DwCase
from tests.ops.test_depthwise_conv2d import depthwise_model
from tests.ops.test_fully_connected import Case as FcCase
from tests.ops.test_fully_connected import fc_model

ARMV6M = Core.ARMV6M


def _pair_macs(x_words: np.ndarray, w_words: np.ndarray) -> np.ndarray:
    """sum over k of the rounded high half of x[k] * w[k] modulo 2^32, as MULS, ASRS #16, ADCS compute it."""
    product = (x_words.astype(np.uint64) * w_words.astype(np.uint64)) & 0xFFFFFFFF
    high = (product >> 16).astype(np.int64) - ((product >> 31) << 16).astype(np.int64)
    return (high + ((product >> 15) & 1).astype(np.int64)).sum(axis=-1)


@pytest.mark.parametrize("depth", [1, 7, 8, 23])
def test_pair_words_meet_pair_activations_in_dot_products(depth: int) -> None:
    """The extremes included: inputs of -128 and 127 against weights of -127 and 127."""
    rng = np.random.default_rng(depth)
    rows = 6
    w = rng.integers(-127, 128, (rows, depth))
    w[0] = -127
    w[1] = 127
    pairs = padded_pairs(depth)
    assert pairs % UNROLL == 0 and 2 * pairs >= depth
    words = pair_words(w).reshape(-1, pairs, 4)  # [blocks][pairs][row]
    for x in (rng.integers(-128, 128, depth), np.full(depth, -128), np.full(depth, 127)):
        padded = np.zeros(2 * pairs, np.int64)
        padded[:depth] = x
        x_words = (padded[0::2] + padded[1::2] * 65536) % 2**32  # mote_pair_word
        for r in range(rows):
            assert _pair_macs(x_words, words[r // 4, :, r % 4]) == int(w[r] @ x)
    assert not words[rows // 4, :, rows % 4:].any()  # padding rows are zero


CONV_CASES = [
    # channels not a multiple of the block of four, taps not a multiple of eight, no padding
    Case(1, (7, 5), 3, 5, (3, 3), 3, (1, 1), (1, 1), "VALID", "RELU", True, True),
    # two images, stride 2 across, SAME padding, dilation 2 down
    Case(2, (6, 7), 6, 7, (3, 2), 6, (2, 1), (1, 2), "SAME", "NONE", True, True),
    Case(1, (5, 5), 8, 6, (1, 1), 8, (1, 1), (1, 1), "VALID", "RELU6", False, False),  # pointwise, direct rows
    Case(1, (4, 3), 5, 9, (1, 1), 5, (2, 2), (1, 1), "SAME", "NONE", True, True),  # 1x1 at stride 2
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_matches_tflm_sanitized(case: Case, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(31)
    graph = check_model(conv_chain_model([case], rng), seeds=2, sanitize=True, core=ARMV6M)
    assert chosen(graph.nodes[0], ARMV6M) == "mote_conv_armv6m_s8"  # type: ignore[attr-defined]


def test_conv_with_a_weight_of_minus_128_keeps_the_portable_kernel() -> None:
    """A pair of products with a weight of -128 could reach 2^15: such layers decline the kernel."""
    seen = 0
    for seed in range(32, 40):
        graph = load_tflite(conv_model(CONV_CASES[0], np.random.default_rng(seed), weight_min=-128), "m")
        has_min = int(graph.nodes[0].inputs[1].data.min()) == -128  # type: ignore[union-attr]
        seen += has_min
        assert (chosen(graph.nodes[0], ARMV6M) == "mote_conv_armv6m_s8") == (not has_min)
    assert seen


DW_CASES = [
    DwCase(2, (7, 8), 5, 1, (3, 3), (2, 1), (1, 1), "SAME", "RELU6", True, True),  # stride 2, padding, odd channels
    DwCase(1, (16, 6), 3, 2, (3, 3), (1, 1), (1, 1), "SAME", "NONE", True, False),  # depth multiplier 2, two strips
    DwCase(1, (9, 9), 4, 3, (2, 4), (1, 2), (2, 1), "VALID", "RELU", False, True),  # dilated, multiplier 3
    DwCase(1, (5, 30), 2, 1, (5, 5), (2, 2), (1, 1), "SAME", "NONE", True, True),  # 5x5, stride 2 both ways
]


@pytest.mark.parametrize("case", DW_CASES)
def test_depthwise_matches_tflm_sanitized(case: DwCase, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(33)
    graph = check_model(depthwise_model(case, rng), seeds=2, sanitize=True, core=ARMV6M)
    assert chosen(graph.nodes[0], ARMV6M) == "mote_depthwise_conv_armv6m_s8"  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", [FcCase((3, 13), 13, 7, False, "RELU", True, 0, True),
                                  FcCase((1, 20), 20, 8, False, "NONE", False, 0, False),
                                  FcCase((1, 20), 20, 8, False, "NONE", False, 5, True)])  # a filter zero point
def test_fully_connected_matches_tflm_sanitized(case: FcCase, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(35)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True, core=ARMV6M)
    assert chosen(graph.nodes[0], ARMV6M) == "mote_fully_connected_armv6m_s8"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("file", "op"), [("kws_ref_model.tflite", "conv2d"), ("kws_ref_model.tflite",
                                          "depthwise_conv2d"), ("ad01_int8.tflite", "fully_connected")])
def test_one_multiply_stage_in_halves_is_tflites_requantization(file: str, op: str) -> None:
    """The first layer of the op in an MLPerf Tiny model: on every channel with a row, mote_armv6m_single's uint32
    steps equal TFLite's two roundings, offset and clamp included, on its thresholds, their neighbours and random
    accumulators of the reachable range; most channels have a row."""
    rng = np.random.default_rng(36)
    graph = load_tflite((MLPERF_TINY / file).read_bytes(), "m")
    node = next(n for n in graph.nodes if n.op == op)
    p = OPS[op].prepare(node)
    bias, reach = bias_and_reach(op, p)
    n = len(bias)
    multiplier, shift = np.broadcast_to(p.multiplier, n), np.broadcast_to(p.shift, n)
    rows, folded = single_rows(multiplier, shift, p.output_offset, p.act_min, p.act_max, bias, reach)
    has = rows[:, 1] >= 0
    assert has.sum() > n // 2
    for c in range(n):
        lo, hi = int(bias[c] - reach[c]), int(bias[c] + reach[c])
        acc = np.concatenate([rng.integers(lo, hi + 1, 3000), [lo, hi]])
        if has[c]:
            low = int(bias[c]) - int(folded[c])  # the accumulator at z = 0
            edges = np.array([low - 1, low, low + 1, low + int(rows[c, 0]) - 1, low + int(rows[c, 0])])
            acc = np.concatenate([acc, edges[(edges >= lo) & (edges <= hi)]])
        expected = np.clip(multiply_by_quantized_multiplier(acc, int(multiplier[c]), int(shift[c])) + p.output_offset,
                           p.act_min, p.act_max)
        if has[c]:
            assert np.array_equal(single_emulate(acc - bias[c] + folded[c], rows[c], p.act_min, p.act_max), expected)
        else:
            assert folded[c] == bias[c]  # the channel keeps its bias for mote_dsp.h's stage
