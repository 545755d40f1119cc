"""mote_fully_connected_bytes_s8 against TFLite Micro: the layers the pairs kernel leaves for their flash (over
its pair-word budget, most groups not sharing a rounding), per-tensor and per-channel weights, several rows,
on the host and on the rv32 virtual platform (fewer instructions per MAC than the blocked kernel)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mote import pipeline
from mote.ops.fully_connected_bytes import MAX_DEPTH, accepts, byte_words, pack_weights
from mote.ops.fully_connected_pairs import match_words
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32, Rv32Config
from tests.ops.kernel_util import chosen
from tests.ops.test_fully_connected import Case, fc_model

LARGE = [(128, 512, False, 0, True), (512, 128, True, 0, False), (256, 256, False, 5, True)]


@pytest.mark.parametrize("depth, out_depth, per_channel, filter_zp, bias", LARGE)
def test_fully_connected_bytes_matches_tflm(depth: int, out_depth: int, per_channel: bool, filter_zp: int,
                                            bias: bool, check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(depth + out_depth + filter_zp)
    case = Case((2, depth), depth, out_depth, False, "RELU" if bias else "NONE", per_channel, filter_zp, bias)
    graph = check_model(fc_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR)
    node = graph.nodes[0]
    assert chosen(node, Core.SCALAR) == "mote_fully_connected_bytes_s8"


def test_words_hold_biased_bytes_of_the_matched_groups() -> None:
    """Each row's word holds the biased bytes of its group's two input words in the kernel's order; every
    input word appears once per block; the groups that share come first, as the runs count them."""
    rng = np.random.default_rng(7)
    w = rng.integers(-127, 128, (32, 24))
    words, offsets, runs = pack_weights(w)
    assert words.dtype == np.uint32 and words.size == 32 * 24 // 4
    assert runs.tolist()[0::2] == [len(match_words(w[:16])[0]), len(match_words(w[16:])[0])]
    for block in range(2):
        groups = offsets[block * 12:(block + 1) * 12].reshape(-1, 2) // 8
        assert sorted(groups.reshape(-1).tolist()) == list(range(12))
        for g, (a, b) in enumerate(groups):
            word = words[(block * 6 + g) * 16 + 3]
            row = w[block * 16 + 3]
            assert [(int(word) >> s & 255) - 128 for s in (0, 8, 16, 24)] == [row[2 * a], row[2 * b], row[2 * a + 1],
                                                                              row[2 * b + 1]]
    assert byte_words(np.full((16, 4), -127), 0, 1).tolist() == [0x01010101] * 16


def test_declines_what_it_cannot_take() -> None:
    def layer(out_depth: int, depth: int, lo: int = -127) -> SimpleNamespace:
        return SimpleNamespace(out_depth=out_depth, accum_depth=depth, weights=np.full((out_depth, depth), lo))

    assert accepts(None, layer(16, MAX_DEPTH)) is None  # type: ignore[arg-type]
    assert "over 512" in (accepts(None, layer(16, MAX_DEPTH + 4)) or "")  # type: ignore[arg-type]
    assert "multiple of 16" in (accepts(None, layer(24, 8)) or "")  # type: ignore[arg-type]
    assert "multiple of 4" in (accepts(None, layer(16, 6)) or "")  # type: ignore[arg-type]
    assert "-128" in (accepts(None, layer(16, 8, -128)) or "")  # type: ignore[arg-type]


def test_on_the_virtual_platform_fewer_instructions_than_the_blocked_kernel(tmp_path: Path) -> None:
    """A decode-step shape (one row, 128 -> 512) whose weights, up to 90, share roundings in under a third of
    their consecutive groups (the pairs kernel leaves it) and in nearly all matched ones: about 3 instructions
    per MAC (the blocked kernel: about 3.5)."""
    rng = np.random.default_rng(11)
    case = Case((1, 128), 128, 512, False, "NONE", True, 0, True)
    path = tmp_path / "fc.tflite"
    path.write_bytes(fc_model(case, rng, weight_max=90))
    report = pipeline.run(path, target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path / "w").to_json()
    assert report["bit_exact"]
    layer = report["layers"][0]
    assert layer["kernel"] == "mote_fully_connected_bytes_s8"
    assert layer["instructions"] <= 3.05 * layer["macs"]
