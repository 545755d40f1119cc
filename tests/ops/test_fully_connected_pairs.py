"""mote_fully_connected_pairs_s8 against TFLite Micro: blocks of sixteen rows whose groups of four inputs
share a rounding or not (runs of both kinds), per-tensor and per-channel weights, several rows."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import pytest

from mote.ops.fully_connected_pairs import (
    MAX_DEPTH,
    MAX_WORDS_BYTES,
    SHARED_FRACTION,
    accepts,
    match_words,
    pack_weights,
    runs,
    shared_groups,
)
from mote.ops.fully_connected_row_pairs import fits as row_pairs_fit
from mote.ops.pair_groups import fits
from mote.ops.registry import Core
from tests.ops.kernel_util import chosen
from tests.ops.test_fully_connected import Case, fc_model


@pytest.mark.parametrize("seed", range(4))
def test_fully_connected_pairs_matches_tflm(seed: int, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(5100 + seed)
    depth, out_depth = 4 * int(rng.integers(1, 40)), 16 * int(rng.integers(1, 4))
    case = Case((1 + seed % 3, depth), depth, out_depth, False, str(rng.choice(["NONE", "RELU"])), seed % 2 == 0,
                0, seed != 3)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_fully_connected_pairs_s8"


def test_fully_connected_pairs_declines_a_filter_offset_of_minus_128(check_model: Callable[..., object]) -> None:
    """A negative filter zero point lets a weight be -128: the row-pairs kernel takes the layer where its
    two-term sums fit 16 bits, else the blocked kernel."""
    rng = np.random.default_rng(5200)
    graph = check_model(fc_model(Case((2, 32), 32, 16, False, "NONE", False, -9, True), rng), seeds=2,
                        sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    if int(node.inputs[1].data.min()) == -128:
        after = "mote_fully_connected_row_pairs_s8" if row_pairs_fit(node.inputs[1].data) else \
            "mote_fully_connected_blocked_s8"
        assert chosen(node, Core.SCALAR) == after
    else:
        assert chosen(node, Core.SCALAR) == "mote_fully_connected_pairs_s8"


def test_runs_alternate_and_count_every_group() -> None:
    assert runs(np.array([True, True, False, True, False, False])) == [2, 1, 1, 2]
    assert runs(np.array([False, True])) == [0, 1, 1, 0]


def test_fully_connected_pairs_small_weights_share(check_model: Callable[..., object]) -> None:
    """Small weights: every group shares its rounding; then weights of mixed sizes, runs of both kinds; a
    filter zero point on top."""
    rng = np.random.default_rng(5300)
    case = Case((2, 64), 64, 32, False, "NONE", False, 3, True)
    for weight_max in (60, 90):
        graph = check_model(fc_model(case, rng, weight_max=weight_max), seeds=2, sanitize=True, core=Core.SCALAR)
        assert chosen(graph.nodes[0], Core.SCALAR) == "mote_fully_connected_pairs_s8"
    model = fc_model(case, rng)
    graph = check_model(model, seeds=2, sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_fully_connected_pairs_s8"


def test_words_matched_for_shared_roundings() -> None:
    """Heavy and light words matched: every group shares; the offsets name each group's words; all words once."""
    light, heavy = np.full((16, 2), 5), np.full((16, 2), 120)
    block = np.concatenate([heavy, heavy, light, light], axis=1).astype(np.int8)  # words 0, 1 heavy; 2, 3 light
    shared, separate = match_words(block)
    assert sorted(shared) == [(0, 2), (1, 3)] or sorted(shared) == [(0, 3), (1, 2)]
    assert separate == []
    heavy_only = np.full((16, 8), 120, np.int8)
    assert match_words(heavy_only) == ([], [(0, 1), (2, 3)])
    words, offsets, block_runs = pack_weights(np.concatenate([block, heavy_only[:, :8]]))
    assert offsets is not None and block_runs.tolist() == [2, 0, 0, 2]
    assert sorted(offsets[:4].tolist()) == [0, 4, 8, 12] and offsets[4:].tolist() == [0, 4, 8, 12]
    first = offsets[0] // 4
    assert words[0] == int(block[0, 2 * first]) + int(block[0, 2 * first + 1]) * 65536
    assert words.size == 2 * 16 * 8 // 2
    in_order = np.concatenate([light, light, light, light], axis=1).astype(np.int8)  # matching gains nothing
    words, offsets, block_runs = pack_weights(np.concatenate([in_order, heavy_only[:, :8]]))
    assert offsets is None and block_runs.tolist() == [2, 0, 0, 2]
    assert words[0] == 5 + 5 * 65536
    rng = np.random.default_rng(5500)
    for _ in range(5):
        w = rng.integers(-127, 128, (16, 64))
        shared, separate = match_words(w)
        assert sorted(k for g in shared + separate for k in g) == list(range(32))
        for i, j in shared:
            assert fits(np.concatenate([w[:, 2 * i:2 * i + 2], w[:, 2 * j:2 * j + 2]], axis=1)).all()


def test_large_layers_need_most_groups_sharing() -> None:
    """Over MAX_WORDS_BYTES of pair words, a layer is taken only when SHARED_FRACTION of its groups share."""
    rng = np.random.default_rng(5400)
    rows = MAX_WORDS_BYTES // (2 * 128) * 2  # twice the largest layer taken whatever its groups
    small = SimpleNamespace(out_depth=rows, accum_depth=128, weights=rng.integers(-40, 41, (rows, 128)))
    large = SimpleNamespace(out_depth=rows, accum_depth=128, weights=rng.integers(-127, 128, (rows, 128)))
    assert shared_groups(small.weights).mean() >= SHARED_FRACTION > shared_groups(large.weights).mean()
    assert accepts(None, small) is None  # type: ignore[arg-type]
    reason = accepts(None, large)  # type: ignore[arg-type]
    assert reason is not None and "bytes of flash" in reason
    half = SimpleNamespace(out_depth=rows // 2, accum_depth=128, weights=large.weights[: rows // 2])
    assert accepts(None, half) is None  # type: ignore[arg-type]
    deep = SimpleNamespace(out_depth=16, accum_depth=MAX_DEPTH + 4, weights=np.ones((16, MAX_DEPTH + 4), np.int8))
    assert "over 1024" in (accepts(None, deep) or "")  # type: ignore[arg-type]
