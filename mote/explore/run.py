"""`mote explore`: sweep, verify, and write the results and plots, for any accelerator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.accel.loader import accelerator_class
from mote.explore import pareto, pareto_plot, plots, report
from mote.explore.search import Search
from mote.explore.space import check_sweep, size_settings
from mote.explore.store import Store
from mote.explore.sweep import by_objective, sweep
from mote.explore.verify import verify as verify_points
from mote.outputs import check_output_root


def explore(models: list[Path], accel: str, sweep_values: dict[str, list[str]], out: Path, verify: int = 0,
            workers: int | None = None, show: bool = True, dask: str | None = None,
            objective: str | None = None, verify_target: str = "rv32", store: Path | None = None,
            use_store: bool = True, search: Search | None = None) -> list[dict[str, Any]]:
    """Sweep (a key with no values takes the values its accelerator declares for it), print the table,
    write results.csv, results.json and the PNG plots, and with `verify` > 0 re-run that many sampled
    points on the virtual platform; `dask`: the address of a Dask scheduler to sweep on instead of the
    local cores; `objective` (cycles or energy): order the rows best first by it; `verify_target`: the VP core
    the verification runs on (rv32 or a Cortex-M one); `store`: the results store (default
    results.sqlite in `out`; `use_store` False: none); `search`: pick points by NSGA-II instead of the
    grid. Every row is marked `pareto` (on the front over cycles, energy and area, per model)."""
    sweep_values = check_sweep(accel, sweep_values)
    keys = list(sweep_values)
    categories = tuple(accelerator_class(accel)[0].cost_categories)
    sizes = size_settings(accel)
    check_output_root(out, "--out")
    opened = Store(store if store is not None else out / "results.sqlite") if use_store else None
    try:
        rows, seconds = sweep(models, accel, sweep_values, workers, progress=show, dask=dask, store=opened,
                              search=search)
    finally:
        if opened is not None:
            opened.close()
    pareto.mark(rows)
    if objective is not None:
        rows = by_objective(rows, objective)
    checks = verify_points(models, accel, rows, verify, keys, target=verify_target) if verify else []
    report.write(rows, checks, seconds, out)
    plots.draw(rows, keys, out, categories, sizes)
    pareto_plot.draw(rows, out)
    if show:
        report.show(rows, checks, seconds, keys, categories, sizes)
    return rows
