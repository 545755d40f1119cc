"""The Pareto front of an exploration over (total cycles, energy, area), all minimized, and, when the rows
carry it (a sweep of sub-byte weights, mote.explore.accuracy), the output error `mean_abs_error` as a fourth:
a point is on it when no other point is at least as good in every objective and better in one. Equal points do not
dominate each other, so ties are all on the front. Rows without all three figures (failed points,
points of an accelerator that declares no hardware) are not compared.
"""

from __future__ import annotations

from typing import Any

OBJECTIVES = ("total_cycles", "energy_uj", "area_mm2")
ACCURACY = "mean_abs_error"


def objectives(rows: list[dict[str, Any]]) -> tuple[str, ...]:
    """OBJECTIVES, and the output error when any row has it."""
    return (*OBJECTIVES, ACCURACY) if any(r.get(ACCURACY) is not None for r in rows) else OBJECTIVES


def dominates(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def _values(row: dict[str, Any], keys: tuple[str, ...]) -> tuple[float, ...] | None:
    if row.get("status") != "ok" or any(row.get(k) is None for k in keys):
        return None
    return tuple(float(row[k]) for k in keys)


def front(rows: list[dict[str, Any]], keys: tuple[str, ...] = OBJECTIVES) -> list[int]:
    """The indices of the non-dominated rows among those with every objective, in row order."""
    points = [(i, v) for i, row in enumerate(rows) if (v := _values(row, keys)) is not None]
    points.sort(key=lambda p: p[1])  # lexicographic: a dominator sorts before what it dominates
    kept: list[tuple[int, tuple[float, ...]]] = []
    for i, v in points:
        if not any(dominates(k, v) for _, k in kept):
            kept.append((i, v))
    return sorted(i for i, _ in kept)


def mark(rows: list[dict[str, Any]], keys: tuple[str, ...] | None = None) -> list[int]:
    """Set `pareto` (True/False) on every row, per model (each model's points are compared among
    themselves); the indices of the front. `keys`: the objectives (default: `objectives(rows)`)."""
    keys = objectives(rows) if keys is None else keys
    on: list[int] = []
    for model in dict.fromkeys(r.get("model") for r in rows):
        mine = [i for i, r in enumerate(rows) if r.get("model") == model]
        on.extend(mine[j] for j in front([rows[i] for i in mine], keys))
    chosen = set(on)
    for i, row in enumerate(rows):
        row["pareto"] = i in chosen
    return sorted(on)
