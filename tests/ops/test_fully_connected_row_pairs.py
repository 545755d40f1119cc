"""mote_fully_connected_row_pairs_s8 against TFLite Micro: few output rows (odd counts paired with a row of
zeros), blocks of one to four row pairs, depths of every remainder by eight, per-tensor weights with a filter
offset and per-channel ones; its exactness bound against brute force."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from mote.ops.fully_connected_row_pairs import MAX_WORDS_BYTES, accepts, fits, pack_words
from mote.ops.registry import Core
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import conv_model
from tests.ops.test_conv_pointwise import pointwise
from tests.ops.test_fully_connected import Case, fc_model


@pytest.mark.parametrize("seed", range(6))
def test_fully_connected_row_pairs_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(5300 + seed)
    depth, out_depth = 8 * int(rng.integers(1, 12)) + seed, [1, 2, 3, 7, 12, 15][seed]
    case = Case((1 + seed % 3, depth), depth, out_depth, False, str(rng.choice(["NONE", "RELU"])), seed % 2 == 0,
                0 if seed % 2 == 0 else int(rng.integers(-5, 5)), seed != 3)
    graph = check_model(fc_model(case, rng, weight_max=120), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_fully_connected_row_pairs_s8"


def test_fully_connected_row_pairs_at_the_bound(check_model: Callable[..., object]) -> None:
    """Weights at -127 and 127 throughout (two-term sums reaching +-32512, a single last input with -128)."""
    rng = np.random.default_rng(5400)
    graph = check_model(fc_model(Case((2, 9), 9, 5, False, "NONE", True, 0, True), rng, weight_max=127), seeds=3,
                        sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_fully_connected_row_pairs_s8"


@pytest.mark.parametrize("in_ch,out_ch,activation", [(9, 5, "RELU"), (12, 10, "NONE"), (16, 3, "RELU6")])
def test_conv_of_one_pixel_runs_on_the_row_pairs_loops(in_ch: int, out_ch: int, activation: str,
                                                       check_model: Callable[..., object]) -> None:
    """A 1x1 convolution of one output pixel (a classifier's logits written as a convolution)."""
    rng = np.random.default_rng(5700 + in_ch)
    graph = check_model(conv_model(pointwise((1, 1), in_ch, out_ch, activation), rng), seeds=3, sanitize=True,
                        core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_conv_row_pairs_s8"
    assert chosen(graph.nodes[0], Core.VECTOR) != "mote_conv_row_pairs_s8"


def _brute_fits(weights: np.ndarray) -> bool:
    rows, depth = weights.shape
    for r in range(rows):
        for d in range(0, depth, 2):
            group = weights[r, d:d + 2].astype(np.int64)
            sums = [int(np.dot(group, x)) for x in itertools.product((-128, 127), repeat=len(group))]
            if min(sums) < -(1 << 15) or max(sums) >= 1 << 15:
                return False
    return True


def test_fits_agrees_with_brute_force() -> None:
    rng = np.random.default_rng(5500)
    seen = set()
    for _ in range(300):
        w = rng.integers(-128, 128, (int(rng.integers(1, 4)), int(rng.integers(1, 6))))
        w[rng.random(w.shape) < 0.5] = rng.choice([-128, -127, 127])
        seen.add(_brute_fits(w))
        assert fits(w) == _brute_fits(w), w
    assert seen == {True, False}


def test_words_hold_two_rows() -> None:
    """Each word is its first row's weight plus its second's times 2^16; blocks of four pairs, a zero row
    past an odd count."""
    w = np.random.default_rng(5600).integers(-127, 128, (11, 5))
    words = pack_words(w).astype(np.int64)
    assert len(words) == 6 * 5
    first = words[:4 * 5].reshape(5, 4)  # the first block: [depth][4 pairs]
    low = (first + 2**15) % 2**16 - 2**15
    np.testing.assert_array_equal(low, w[0:8:2].T)
    np.testing.assert_array_equal((first - low) // 2**16, w[1:8:2].T)
    last = words[4 * 5:].reshape(5, 2)
    np.testing.assert_array_equal((last[:, 1] + 2**15) % 2**16 - 2**15, w[10])
    assert ((last[:, 1] - w[10]) == 0).all()


def test_declines_sums_past_16_bits_and_large_layers() -> None:
    w = np.zeros((3, 4), np.int8)
    w[1, 2:4] = -128
    p = type("P", (), {"weights": w, "out_depth": 3, "accum_depth": 4})()
    assert accepts(None, p) is not None  # type: ignore[arg-type]
    w[1, 3] = -127
    assert accepts(None, p) is None  # type: ignore[arg-type]
    big = type("P", (), {"weights": np.zeros((2, MAX_WORDS_BYTES // 4 + 1), np.int8), "out_depth": 2,
                         "accum_depth": MAX_WORDS_BYTES // 4 + 1})()
    assert "flash" in str(accepts(None, big))  # type: ignore[arg-type]
