"""Arena planning: no two live buffers overlap, and the plan is never below the lower bound."""

from __future__ import annotations

import numpy as np
import pytest

from mote.memory.arena import align, plan_arena
from mote.memory.lifetimes import Buffer, lower_bound


def random_buffers(rng: np.random.Generator, n: int) -> list[Buffer]:
    bufs = []
    for i in range(n):
        start = int(rng.integers(-1, 20))
        bufs.append(Buffer(f"b{i}", int(rng.integers(1, 5000)), start, start + int(rng.integers(0, 6))))
    return bufs


@pytest.mark.parametrize("seed", range(20))
def test_live_buffers_never_overlap(seed: int) -> None:
    bufs = random_buffers(np.random.default_rng(seed), 30)
    plan = plan_arena(bufs)
    for a in bufs:
        assert plan.offset(a) % 8 == 0
        assert plan.offset(a) + a.size <= plan.size
        for b in bufs:
            if a is not b and a.overlaps(b):
                assert (plan.offset(a) + align(a.size) <= plan.offset(b)
                        or plan.offset(b) + align(b.size) <= plan.offset(a)), (a, b)
    assert plan.size >= plan.lower_bound == lower_bound(bufs)


def test_a_chain_reaches_the_bound() -> None:
    """x -> y -> z: at each step two neighbours are live, so two slots suffice."""
    bufs = [Buffer("x", 64, -1, 0), Buffer("y", 32, 0, 1), Buffer("z", 64, 1, 2)]
    plan = plan_arena(bufs)
    assert plan.lower_bound == 96
    assert plan.size == 96
