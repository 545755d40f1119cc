"""`--search nsga2 --trials N`: a multi-objective search of a space too large for its grid. Optuna's
NSGA-II sampler picks settings among the values of each swept key (the same values a grid would
combine) and minimizes total cycles, energy (µJ) and area (mm²) together; each generation is costed
through the sweep's own path (results store, cost model, the VP's CPU runs), so points the store
holds cost nothing. With several models a trial's cycles and energy are their sums over the models.
With `weight_bits` swept, the output error against the 8-bit model (`mean_abs_error`, its largest over the
models) is a fourth objective, else the search would settle on the narrowest weights.

Deterministic for a given seed: a generation is asked for whole, costed, then told.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

METHODS = ("nsga2",)
OBJECTIVES = ("total_cycles", "energy_uj", "area_mm2")

Evaluate = Callable[[list[tuple[str, str, dict[str, str]]], str], list[dict[str, Any]]]


@dataclass(frozen=True)
class Search:
    method: str = "nsga2"
    trials: int = 100
    seed: int = 0
    population: int = 20


def objectives(rows: list[dict[str, Any]], accuracy: bool = False) -> list[float] | None:
    """A trial's objective values from its rows (one per model), or None if any of them failed; `accuracy`:
    the output error too."""
    if any(r.get("status") != "ok" for r in rows):
        return None
    cycles = [r.get("total_cycles") if r.get("total_cycles") is not None else r.get("accel_cycles") for r in rows]
    energy = [r.get("energy_uj") if r.get("energy_uj") is not None else r.get("accel_energy_uj") for r in rows]
    if None in cycles or None in energy:
        return None
    values = [float(sum(cycles)), float(sum(energy)), float(max(r.get("area_mm2") or 0.0 for r in rows))]
    if accuracy:
        errors = [r.get("mean_abs_error") for r in rows]
        if None in errors:
            return None
        values.append(float(max(errors)))  # type: ignore[type-var]
    return values


def run_search(search: Search, models: list[str], accel: str, space: dict[str, list[str]],
               evaluate: Evaluate) -> list[dict[str, Any]]:
    """`search.trials` trials over `space`; the rows of the distinct points it visited, in the order it
    first visited them."""
    import optuna
    from optuna.distributions import CategoricalDistribution
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.NSGAIISampler(population_size=search.population, seed=search.seed)
    accuracy = "weight_bits" in space
    study = optuna.create_study(directions=["minimize"] * (len(OBJECTIVES) + accuracy), sampler=sampler)
    distributions = {key: CategoricalDistribution(tuple(values)) for key, values in space.items()}
    seen: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, Any]] = {}
    asked = 0
    while asked < search.trials:
        batch = [study.ask(distributions) for _ in range(min(search.population, search.trials - asked))]
        asked += len(batch)
        settings = [{key: str(trial.params[key]) for key in space} for trial in batch]
        tasks = [(model, accel, point) for point in settings for model in models]
        rows = evaluate(tasks, search.method)
        for i, trial in enumerate(batch):
            mine = rows[i * len(models):(i + 1) * len(models)]
            for (model, _, point), row in zip(tasks[i * len(models):], mine):
                seen.setdefault((model, tuple(point.items())), row)
            values = objectives(mine, accuracy)
            if values is None:
                study.tell(trial, state=TrialState.FAIL)
            else:
                study.tell(trial, values)
    return list(seen.values())
