"""Arena planning: no two live buffers overlap, except as a kernel allows its output over an input
it reads for the last time, and without such overlaps the plan is never below the lower bound."""

from __future__ import annotations

import numpy as np
import pytest

from mote.memory.arena import Shares, align, plan_arena
from mote.memory.lifetimes import Buffer, lower_bound
from mote.ops.registry import Overlap


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


def random_shares(rng: np.random.Generator, bufs: list[Buffer]) -> Shares:
    """For some (output, input) pairs, an input read for the last time where the output is made,
    an Overlap either way."""
    shares = {}
    for out in bufs:
        inputs = [b for b in bufs if b is not out and b.end == out.start]
        if inputs and rng.integers(2):
            x = inputs[int(rng.integers(len(inputs)))]
            bound = int(rng.integers(-out.size, x.size + 1))
            shares[(out, x)] = Overlap(at_most=bound) if rng.integers(2) else Overlap(at_least=bound)
    return shares


def allowed(d: int, share: Overlap) -> bool:
    return (share.at_most is not None and d <= share.at_most) or (share.at_least is not None
                                                                  and d >= share.at_least)


@pytest.mark.parametrize("seed", range(20))
def test_buffers_overlap_only_as_their_kernels_allow(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    bufs = random_buffers(rng, 30)
    shares = random_shares(rng, bufs)
    assert shares
    plan = plan_arena(bufs, shares)
    for a in bufs:
        assert plan.offset(a) % 8 == 0 and plan.offset(a) + a.size <= plan.size
        for b in bufs:
            if a is b or not a.overlaps(b):
                continue
            disjoint = (plan.offset(a) + align(a.size) <= plan.offset(b)
                        or plan.offset(b) + align(b.size) <= plan.offset(a))
            share = shares.get((a, b))
            assert disjoint or (share is not None and allowed(plan.offset(a) - plan.offset(b), share)) or (
                (b, a) in shares), (a, b)
    assert plan.size <= plan_arena(bufs).size


@pytest.mark.parametrize(("x_size", "y_size", "share", "size"), [
    (64, 64, Overlap(at_most=0), 64),  # in place, forwards
    (64, 80, Overlap(at_most=-16), 80),  # a larger output, forwards: it starts before the input
    (64, 96, Overlap(at_least=-16), 96),  # a larger output, backwards
    (64, 64, Overlap(at_least=32), 96),
])
def test_an_output_over_its_input(x_size: int, y_size: int, share: Overlap, size: int) -> None:
    """x -> y, x read for the last time as y is written: the two share bytes as far as the Overlap says."""
    x, y = Buffer("x", x_size, -1, 0), Buffer("y", y_size, 0, 1)
    plan = plan_arena([x, y], {(y, x): share})
    assert plan.size == size
    assert allowed(plan.offset(y) - plan.offset(x), share)
