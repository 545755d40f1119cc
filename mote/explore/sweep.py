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
from mote.explore.cpu import cpu_cycles_task
from mote.explore.evaluate import CPU_WORK, evaluate
from mote.explore.search import Search, run_search
from mote.explore.space import points, spec
from mote.explore.store import Store, as_point, cpu_key, point_key

DASK_CONNECT_TIMEOUT = "10s"
STORE_EVERY = 1000  # points costed between writes to the store
Task = tuple[str, str, dict[str, str]]  # model path, accelerator spec, the point's settings (texts)


def _evaluate_args(task: Task) -> dict[str, Any]:
    return evaluate(*task)


def _chunk(func: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    return [func(item) for item in items]


def sweep(models: list[Path], accel: str, settings: dict[str, list[str]], workers: int | None = None,
          progress: bool = True, dask: str | None = None, cpu: bool = True, store: Store | None = None,
          search: Search | None = None) -> tuple[list[dict[str, Any]], float]:
    """Every point for every model (or those `search` picks from the same space); returns the rows (in
    order) and the seconds it took. `cpu`: add the CPU's cycles from the virtual platform (without it,
    cpu_cycles and total_cycles stay None); `store`: reuse and keep results there."""
    model_paths = [str(m.resolve()) for m in models]
    grid: list[Task] = [] if search else [(m, accel, p) for m in model_paths for p in points(settings)]
    size = len(grid) if search is None else search.trials * len(models)
    workers = workers if workers is not None else min(os.cpu_count() or 1, max(size // 8, 1))
    start = time.perf_counter()
    with _runner(workers, dask) as run_all, Progress(transient=True, disable=not progress) as bar:
        def evaluate_tasks(tasks: list[Task], found: str) -> list[dict[str, Any]]:
            return _evaluate_tasks(tasks, found, run_all, bar, store, cpu)

        if search is None:
            rows = evaluate_tasks(grid, "grid")
        else:
            rows = run_search(search, model_paths, accel, settings, evaluate_tasks)
    return rows, time.perf_counter() - start


def _evaluate_tasks(tasks: list[Task], found: str, run_all: Runner, bar: Progress, store: Store | None,
                    cpu: bool) -> list[dict[str, Any]]:
    """The rows of `tasks`, in order: each distinct point costed once (unless the store holds it), then
    each distinct CPU workload run once on the VP (unless the store holds it)."""
    keys = [point_key(*t) for t in tasks]
    unique: dict[str, Task] = {}
    for key, t in zip(keys, tasks):
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
    rows = [dict(as_point(results[k], accel, point) if k in known else results[k], found=found)
            for k, (_, accel, point) in zip(keys, tasks)]
    works = [row.pop(CPU_WORK, None) for row in rows]
    if not cpu:
        return rows
    runs: dict[str, tuple[str, str]] = {}  # each CPU workload, run with the first point that has it
    for work, (model, accelerator, point) in zip(works, tasks):
        if work is not None:
            runs.setdefault(cpu_key(model, work), (model, spec(accelerator, point)))
    stored = store.cpu(list(runs)) if store is not None else {}
    missing = [k for k in runs if k not in stored]
    bar.update(task, description=f"running {len(missing)} CPU workloads on the virtual platform "
                                 f"({len(stored)} from the store)", completed=0, total=len(missing))
    ran = dict(zip(missing, run_all(cpu_cycles_task, [runs[k] for k in missing], lambda n: bar.advance(task, n))))
    if store is not None and ran:
        store.add_cpu(ran)
    cycles = {**stored, **ran}
    for row, work, (model, _, _) in zip(rows, works, tasks):
        if work is not None:
            _add_cpu(row, cycles[cpu_key(model, work)])
    return rows


def _add_cpu(row: dict[str, Any], cpu: dict[str, Any] | str) -> None:
    """The CPU's cycles and energy into the row, and the point's energy: the CPU's plus the accelerator's
    (its MACs, SRAM accesses and DMA bytes: mote.explore.area, docs/area.md)."""
    if isinstance(cpu, str):
        row["status"] = cpu
        return
    cycles = int(cpu["cycles"])
    row.update(cpu_cycles=cycles, total_cycles=row["accel_cycles"] + cycles)
    if cpu.get("energy_uj") is not None:
        accel_uj = row.get("accel_energy_uj", 0.0)
        row.update(energy_uj=round(cpu["energy_uj"] + accel_uj, 6), cpu_energy_uj=round(cpu["energy_uj"], 6))


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
