"""`mote explore`: sweep, verify, and write the results and plots, for any accelerator (or none) on
any platform."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.accel.loader import accelerator_class
from mote.errors import MoteError
from mote.explore import pareto, pareto_plot, plots, report
from mote.explore.platform_space import PLATFORM_KEYS, PLATFORM_SIZES, check_platform_sweep
from mote.explore.search import Search
from mote.explore.space import check_sweep, size_settings
from mote.explore.store import Store
from mote.explore.sweep import by_objective, sweep
from mote.explore.verify import verify as verify_points
from mote.outputs import check_output_root
from mote.sim.platforms import Platform

NO_ACCELERATOR = "none"


def split_sweep(accel: str | None, sweep_values: dict[str, list[str]]) -> tuple[dict[str, list[str]],
                                                                               dict[str, list[str]]]:
    """The accelerator's keys and the platform's (mote.explore.platform_space.PLATFORM_KEYS), checked."""
    plat = {k: v for k, v in sweep_values.items() if k in PLATFORM_KEYS}
    ours = {k: v for k, v in sweep_values.items() if k not in PLATFORM_KEYS}
    if accel is None and ours:
        key = next(iter(ours))
        raise MoteError(f"--sweep {key}: not a platform key ({', '.join(PLATFORM_KEYS)}) and no accelerator to "
                        "take it as a setting; give --accel NAME or sweep a platform key")
    return (check_sweep(accel, ours) if accel is not None else {}), plat


def explore(models: list[Path], accel: str | None, sweep_values: dict[str, list[str]], out: Path, verify: int = 0,
            workers: int | None = None, show: bool = True, dask: str | None = None,
            objective: str | None = None, platform: Platform | None = None,
            verify_target: str = "rv32", store: Path | None = None, use_store: bool = True,
            search: Search | None = None) -> list[dict[str, Any]]:
    """Sweep (a key with no values takes the values its accelerator declares for it), print the table,
    write results.csv, results.json and the PNG plots, and with `verify` > 0 re-run that many sampled
    points on the virtual platform; `dask`: the address of a Dask scheduler to sweep on instead of the
    local cores; `objective` (cycles or energy): order the rows best first by it. `accel` None: no
    accelerator, the whole model on the CPU. `platform` (None: mcu) is the base platform the keys
    cores, l1 and dma_bw vary; `verify_target`: the VP core the verification runs on (rv32 or a Cortex-M one);
    `store`: the results store (default results.sqlite in `out`; `use_store` False: none); `search`: pick
    points by NSGA-II instead of the grid. Every row is marked `pareto` (on the front over cycles, energy and
    area, per model)."""
    accel_values, plat_values = split_sweep(accel, sweep_values)
    if plat_values:
        if platform is None:
            from mote.sim.platforms import builtin
            platform = builtin("mcu")
        check_platform_sweep(platform, plat_values)
    if platform is not None:
        platform.check_simulated()
    if verify and accel is None:
        raise MoteError("--verify: checks an accelerator's cost model; give --accel NAME, or leave --verify out")
    if search is not None and (accel is None or plat_values):
        raise MoteError("--search: searches an accelerator's settings; sweep platform keys with the grid (leave "
                        "--search out)")
    keys = [*accel_values, *plat_values]
    categories = tuple(accelerator_class(accel)[0].cost_categories) if accel is not None else ()
    sizes = (size_settings(accel) if accel is not None else set()) | PLATFORM_SIZES
    check_output_root(out, "--out")
    opened = Store(store if store is not None else out / "results.sqlite") if use_store else None
    try:
        rows, seconds = sweep(models, accel, accel_values, workers, progress=show, dask=dask, platform=platform,
                              platform_settings=plat_values, store=opened, search=search)
    finally:
        if opened is not None:
            opened.close()
    pareto.mark(rows)
    in_order = rows  # the plots' lines and legends follow the sweep's order, not the objective's
    if objective is not None:
        rows = by_objective(rows, objective)
    checks = verify_points(models, accel, rows, verify, list(accel_values), target=verify_target) if verify else []
    report.write(rows, checks, seconds, out)
    plots.draw(in_order, keys, out, categories, sizes)
    pareto_plot.draw(rows, out)
    if show:
        report.show(rows, checks, seconds, keys, categories, sizes)
    return rows
