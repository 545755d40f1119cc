"""Sweeps: the cartesian product of `key=v1,v2` settings over one or more models.

Each point is costed by the accelerator's cost model (mote.explore.evaluate); then each distinct CPU
workload among the points runs once on the virtual platform for the CPU's cycles (mote.explore.cpu),
and every row gets accel_cycles + cpu_cycles = total_cycles, and an energy estimate, energy_uj (the CPU's
run on the mcu platform plus the accelerator's MACs; mote.sim.energy). Points run in parallel on the local
cores, or, given the address of a Dask distributed scheduler, on that cluster's workers (which must
see the model files at the same paths and have mote installed).

With a results store (mote.explore.store) only the points and CPU workloads it does not hold are
computed. Instead of the grid, a search (mote.explore.search, NSGA-II) may pick the points: it asks
for a generation at a time and each goes through the same path (store, cost model, VP). Every row
says how it was found (`found`: grid or nsga2).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.progress import Progress

from mote.errors import MoteError
from mote.explore.cpu import CpuTask, cpu_cycles_task
from mote.explore.evaluate import CPU_WORK, evaluate
from mote.explore.platform_space import columns as platform_columns
from mote.explore.platform_space import derive
from mote.explore.search import Search, run_search
from mote.explore.space import points, spec
from mote.explore.store import Store, as_point, cpu_key, point_key
from mote.sim.platforms import Platform

DASK_CONNECT_TIMEOUT = "10s"
STORE_EVERY = 1000  # points costed between writes to the store
Task = tuple[str, "str | None", dict[str, str], "Platform | None"]  # model, accelerator spec (None: none),
# the point's accelerator settings (texts), its platform (None: mcu)


def _evaluate_args(task: Task) -> dict[str, Any]:
    return evaluate(*task)


def _chunk(func: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    return [func(item) for item in items]


def sweep(models: list[Path], accel: str | None, settings: dict[str, list[str]], workers: int | None = None,
          progress: bool = True, dask: str | None = None, cpu: bool = True, platform: Platform | None = None,
          platform_settings: dict[str, list[str]] | None = None, store: Store | None = None,
          search: Search | None = None) -> tuple[list[dict[str, Any]], float]:
    """Every point for every model (or those `search` picks from the accelerator's space); returns the rows
    (in order) and the seconds it took. `cpu`: add the CPU's cycles from the virtual platform (without it,
    cpu_cycles and total_cycles stay None); `store`: reuse and keep results there. `platform` (None: mcu)
    with `platform_settings` (mote.explore.platform_space keys, swept after the accelerator's): each point's
    CPU work runs on the base platform with the point's values in place."""
    plat = platform_settings or {}
    combined = {**settings, **plat}
    model_paths = [str(m.resolve()) for m in models]

    def task(model: str, point: dict[str, str]) -> Task:
        ours = {k: v for k, v in point.items() if k in plat}
        derived = derive(platform, ours) if platform is not None else None
        return model, accel, {k: v for k, v in point.items() if k not in plat}, derived

    grid: list[Task] = [] if search else [task(m, p) for m in model_paths for p in points(combined)]
    size = len(grid) if search is None else search.trials * len(models)
    workers = workers if workers is not None else min(os.cpu_count() or 1, max(size // 8, 1))
    start = time.perf_counter()
    with _runner(workers, dask) as run_all, Progress(transient=True, disable=not progress) as bar:
        def evaluate_tasks(tasks: list[Any], found: str) -> list[dict[str, Any]]:
            tasks = [t if len(t) == 4 else (*t, platform) for t in tasks]  # the search's, on the base platform
            return _evaluate_tasks(tasks, found, combined, run_all, bar, store, cpu)

        if search is None:
            rows = evaluate_tasks(grid, "grid")
        else:
            rows = run_search(search, model_paths, accel, settings, evaluate_tasks)
    if plat or platform is not None:
        add_speedups(rows, list(combined))
    return rows, time.perf_counter() - start


def _evaluate_tasks(tasks: list[Task], found: str, keys: dict[str, list[str]], run_all: Runner, bar: Progress,
                    store: Store | None, cpu: bool) -> list[dict[str, Any]]:
    """The rows of `tasks`, in order: each distinct point costed once (unless the store holds it), then
    each distinct CPU workload run once on the VP (unless the store holds it)."""
    point_keys = [point_key(*t) for t in tasks]
    unique: dict[str, Task] = {}
    for key, t in zip(point_keys, tasks):
        unique.setdefault(key, t)  # the first of equal points is costed
    known = store.points(list(unique)) if store is not None else {}
    todo = [(k, t) for k, t in unique.items() if k not in known]
    task = bar.add_task(f"costing {len(todo)} points ({len(known)} from the store)", total=len(todo))
    new: dict[str, dict[str, Any]] = {}
    step = STORE_EVERY if store is not None else max(len(todo), 1)
    for i in range(0, len(todo), step):  # stored as they come: an interrupted sweep resumes from there
        part = todo[i:i + step]
        done = dict(zip((k for k, _ in part), run_all(_evaluate_args, [t for _, t in part],
                                                      lambda n: bar.advance(task, n))))
        if store is not None:
            store.add_points(done)
        new.update(done)
    results = {**known, **new}
    rows = [_with_platform(dict(as_point(results[k], accel, point) if k in known else results[k], found=found),
                           keys, derived)
            for k, (_, accel, point, derived) in zip(point_keys, tasks)]
    works = [row.pop(CPU_WORK, None) for row in rows]
    if not cpu:
        return rows
    runs: dict[str, CpuTask] = {}  # each CPU workload, run with the first point that has it
    for work, (model, accelerator, point, derived) in zip(works, tasks):
        if work is not None:
            runs.setdefault(cpu_key(model, work), (model, spec(accelerator, point) if accelerator else None, derived))
    stored = store.cpu(list(runs)) if store is not None else {}
    missing = [k for k in runs if k not in stored]
    bar.update(task, description=f"running {len(missing)} CPU workloads on the virtual platform "
                                 f"({len(stored)} from the store)", completed=0, total=len(missing))
    ran = dict(zip(missing, run_all(cpu_cycles_task, [runs[k] for k in missing], lambda n: bar.advance(task, n))))
    if store is not None and ran:
        store.add_cpu(ran)
    cycles = {**stored, **ran}
    for row, work, (model, _, _, derived) in zip(rows, works, tasks):
        if work is not None:
            _add_cpu(row, cycles[cpu_key(model, work)], derived)
    return rows


def _with_platform(row: dict[str, Any], keys: dict[str, list[str]], platform: Platform | None) -> dict[str, Any]:
    """The row with its platform's columns (name, cores, l1, dma_bw) after the model, then the swept keys
    in the order given, then the figures."""
    if platform is None:
        return row
    values = {"platform": platform.name.split(" (--cores")[0], **platform_columns(platform)}
    head = {"model": row["model"], **{k: values.get(k, row.get(k)) for k in keys}}
    return {**head, **{k: v for k, v in values.items() if k not in head}, **{k: v for k, v in row.items()
                                                                          if k not in head}}


def _add_cpu(row: dict[str, Any], cpu: dict[str, Any] | str, platform: Platform | None = None) -> None:
    """The CPU's cycles and energy into the row, and the point's energy: the CPU's plus the accelerator's
    (its MACs, SRAM accesses and DMA bytes: mote.explore.area, docs/area.md), scaled to the platform's
    technology node like the CPU's (docs/energy.md)."""
    if isinstance(cpu, str):
        row["status"] = cpu
        return
    cycles = int(cpu["cycles"])
    row.update(cpu_cycles=cycles, total_cycles=row["accel_cycles"] + cycles)
    if cpu.get("energy_uj") is not None:
        scale = platform.energy_scale if platform is not None else 1.0
        accel_uj = round(row.get("accel_energy_uj", 0.0) * scale, 6)
        row.update(energy_uj=round(cpu["energy_uj"] + accel_uj, 6), cpu_energy_uj=round(cpu["energy_uj"], 6),
                   accel_energy_uj=accel_uj)


def add_speedups(rows: list[dict[str, Any]], keys: list[str]) -> None:
    """Each row's `speedup`: its baseline's total cycles over its own, and `speedup_vs`, which baseline. With
    `cores` swept over several counts the baseline is the row of the same model and the same other settings
    at the first core count swept (cores=1 in `--sweep cores=1,2,4,8`); else the model's first point."""
    by_cores = "cores" in keys and len({r.get("cores") for r in rows}) > 1
    others = [k for k in keys if k != "cores"] if by_cores else []
    first_cores = rows[0].get("cores") if by_cores else None
    baselines: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in rows:
        if not by_cores or row["cores"] == first_cores:
            baselines.setdefault((row["model"], *(row.get(k) for k in others)), row)
    for row in rows:
        base = baselines.get((row["model"], *(row.get(k) for k in others)))
        mine, theirs = row.get("total_cycles"), base.get("total_cycles") if base else None
        row["speedup"] = round(theirs / mine, 4) if mine and theirs else None
        row["speedup_vs"] = f"cores={first_cores}" if by_cores else "first point"


OBJECTIVES = {"cycles": "total_cycles", "energy": "energy_uj"}


def by_objective(rows: list[dict[str, Any]], objective: str) -> list[dict[str, Any]]:
    """The rows best first by `objective` (cycles: total_cycles, energy: energy_uj), points without the
    figure (failed, or no CPU run) last, in their order."""
    key = OBJECTIVES[objective]
    return sorted(rows, key=lambda r: (r.get(key) is None, r.get(key) or 0))


Runner = Callable[[Callable[[Any], Any], list[Any], Callable[[int], None]], list[Any]]


@contextmanager
def _runner(workers: int, dask: str | None) -> Iterator[Runner]:
    """A function mapping a picklable function over items, in order, on the Dask cluster at `dask`,
    in `workers` local processes, or in this one; it reports progress as items finish."""
    if dask is not None:
        client = _dask_client(dask)  # before the progress bar: a bad address is one line
        with client:
            yield lambda func, items, advance: _on_dask(client, func, items, advance)
        return
    if workers <= 1:
        def serial(func: Callable[[Any], Any], items: list[Any], advance: Callable[[int], None]) -> list[Any]:
            out = []
            for item in items:
                out.append(func(item))
                advance(1)
            return out
        yield serial
        return
    with ProcessPoolExecutor(workers) as pool:
        def parallel(func: Callable[[Any], Any], items: list[Any], advance: Callable[[int], None]) -> list[Any]:
            out = []
            for result in pool.map(func, items, chunksize=max(len(items) // (workers * 8), 1)):
                out.append(result)
                advance(1)
            return out
        yield parallel


def _dask_client(address: str) -> Any:
    from distributed import Client

    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as e:  # unreachable, or an address Dask cannot parse
        detail = " ".join(str(e).split()) or type(e).__name__
        raise MoteError(f"--dask {address}: cannot reach a Dask scheduler there ({detail}); start one with `dask "
                        "scheduler` and `dask worker ADDRESS`, or leave --dask out to use the local cores") from None


def _on_dask(client: Any, func: Callable[[Any], Any], items: list[Any], advance: Callable[[int], None]) -> list[Any]:
    """`func` over `items` in chunks on the Dask cluster `client` is connected to, results in order."""
    from distributed import as_completed

    if not items:
        return []
    workers = max(sum(client.nthreads().values()), 1)
    size = max(len(items) // (workers * 8), 1)
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    futures = client.map(_chunk, [func] * len(chunks), chunks, pure=False)
    sizes = {f.key: len(c) for f, c in zip(futures, chunks)}
    for future in as_completed(futures):
        advance(sizes[future.key])
    return [result for chunk in client.gather(futures) for result in chunk]
