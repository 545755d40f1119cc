"""The L1 tile planner (mote.memory.tiling), in Python alone: tiles cover every output row once, each
tile's input rows hold every row its windows read (its halo), the buffers never exceed the L1, and a
layer that cannot fit says so in one line."""

from __future__ import annotations

import itertools

import pytest

from mote.errors import MemoryFitError
from mote.ir import Node
from mote.memory.tiling import Rows, lay_out, plan_tiles, split

GEOMETRIES = [  # (output rows, input rows, stride, extent, pad_top)
    (16, 16, 1, 3, 1), (8, 16, 2, 3, 0), (8, 16, 2, 4, 1), (5, 11, 2, 5, 1), (12, 12, 1, 7, 3), (30, 30, 1, 1, 0),
]


def _rows(out_rows: int, in_rows: int, stride: int, extent: int, pad_top: int) -> Rows:
    return Rows("window", out_rows, in_rows, (48,), 32, stride, extent, pad_top)


NODE = Node("conv2d", "c", [], [])


@pytest.mark.parametrize("geometry,budget", list(itertools.product(GEOMETRIES, (256, 600, 1500, 4000))))
def test_tiles_cover_the_rows_with_their_halo_within_the_budget(geometry: tuple[int, ...], budget: int) -> None:
    rows = _rows(*geometry)
    try:
        plan = plan_tiles(NODE, 0, rows, lambda tile: 0, budget)
    except MemoryFitError:
        one = _rows(*geometry)
        need = 2 * (min(one.extent, one.in_rows) * 48) + 2 * 32  # two one-row tiles' buffers, at least
        assert need > budget or rows.count == 1
        return
    assert plan.l1_bytes <= budget
    covered = [r for t in plan.tiles for r in range(t.out0, t.out1)]
    assert covered == list(range(rows.count))  # every output row once, in order
    for t in plan.tiles:
        for out in range(t.out0, t.out1):
            for tap in range(rows.extent):
                row = out * rows.stride - rows.pad_top + tap
                if 0 <= row < rows.in_rows:  # a real input row: it is in the tile's rows
                    assert t.in0 <= row < t.in1
                    # where the tile's kernel looks for it: its own window with the tile's padding
                    assert (out - t.out0) * rows.stride - t.pad_top + tap == row - t.in0
                else:  # padding in the layer: padding in the tile too
                    local = (out - t.out0) * rows.stride - t.pad_top + tap
                    assert not 0 <= local < t.in1 - t.in0
    for offsets in plan.inputs:  # buffers do not overlap and are 8-byte aligned
        assert all(o % 8 == 0 for o in offsets)
    spans = sorted([(o, o + max(plan.in_bytes(0, t) for t in plan.tiles)) for o in plan.inputs[0]]
                   + [(o, o + max(plan.out_bytes(t) for t in plan.tiles)) for o in plan.outputs])
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_the_fewest_tiles_that_fit() -> None:
    rows = _rows(16, 16, 1, 3, 1)
    whole = plan_tiles(NODE, 0, rows, lambda tile: 0, 1 << 20)
    assert len(whole.tiles) == 1 and whole.l1_bytes == 16 * 48 + 16 * 32  # one buffer each
    for budget in (whole.l1_bytes - 1, 1000, 700, 500):
        tiled = plan_tiles(NODE, 0, rows, lambda tile: 0, budget)
        n = len(tiled.tiles)
        assert n > 1
        # one tile fewer, its rows shared as evenly, does not fit
        fewer = lay_out(rows, split(rows, -(-rows.count // (n - 1))), 0)
        assert n == 2 and whole.l1_bytes > budget or fewer.l1_bytes > budget


def test_scratch_counts_against_the_budget() -> None:
    rows = _rows(16, 16, 1, 3, 1)
    plan = plan_tiles(NODE, 0, rows, lambda tile: 100 * (tile.out1 - tile.out0), 2000)
    assert plan.l1_bytes <= 2000 and plan.scratch_bytes >= 100 * (plan.tiles[0].out1 - plan.tiles[0].out0)


def test_a_layer_that_cannot_tile_into_the_l1_gets_one_line() -> None:
    node = Node("conv2d", "big conv", [], [])
    with pytest.raises(MemoryFitError) as info:
        plan_tiles(node, 7, _rows(16, 16, 1, 3, 1), lambda tile: 0, 100)
    text = str(info.value)
    assert "\n" not in text and "layer 7 (conv2d 'big conv')" in text and "larger l1" in text
