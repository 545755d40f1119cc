"""The Pareto front over (cycles, energy, area): dominance, ties, rows without every figure, per model."""

from __future__ import annotations

from typing import Any

from mote.explore.pareto import dominates, front, mark


def row(cycles: float | None, energy: float | None, area: float | None, model: str = "m",
        status: str = "ok") -> dict[str, Any]:
    return {"model": model, "status": status, "total_cycles": cycles, "energy_uj": energy, "area_mm2": area}


def test_dominance_needs_one_strictly_better_objective() -> None:
    assert dominates((1, 1, 1), (1, 1, 2))
    assert not dominates((1, 1, 1), (1, 1, 1))  # equal: neither dominates
    assert not dominates((1, 2, 1), (2, 1, 1))  # a trade-off
    assert not dominates((2, 2, 2), (1, 1, 1))


def test_front_of_hand_made_points() -> None:
    rows = [row(10, 5, 1),   # 0: on the front (least area among the fast ones)
            row(10, 5, 2),   # 1: dominated by 0 (more area, else equal)
            row(5, 9, 3),    # 2: on the front (fastest)
            row(12, 4, 1),   # 3: on the front (least energy)
            row(11, 6, 1),   # 4: dominated by 0
            row(5, 9, 3),    # 5: a tie with 2: on the front too
            row(20, 20, 20)]  # 6: dominated by everything
    assert front(rows) == [0, 2, 3, 5]


def test_rows_without_every_figure_are_not_compared() -> None:
    rows = [row(1, 1, None), row(1, 1, 1, status="failed"), row(3, 3, 3), row(None, 0, 0)]
    assert front(rows) == [2]


def test_front_matches_brute_force() -> None:
    import random

    rng = random.Random(7)
    rows = [row(rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6)) for _ in range(200)]
    values = [(r["total_cycles"], r["energy_uj"], r["area_mm2"]) for r in rows]
    expected = [i for i, v in enumerate(values) if not any(dominates(w, v) for w in values)]
    assert front(rows) == expected


def test_mark_compares_each_model_apart() -> None:
    rows = [row(1, 1, 1, "a"), row(2, 2, 2, "a"), row(2, 2, 2, "b"), row(3, 3, 3, "b")]
    assert mark(rows) == [0, 2]
    assert [r["pareto"] for r in rows] == [True, False, True, False]
