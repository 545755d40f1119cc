"""Sweeps: the cartesian product of `key=v1,v2` settings over one or more models, by the cost model.

Each point compiles every model for the accelerator configured with the point's settings (partition,
offload, one job per node: tiling and command streams included) and adds up the cost model's cycles
per job; nothing is emulated. Points run in parallel on the local cores, or, given the address of
a Dask distributed scheduler, on that cluster's workers (which must see the model files at the same
paths and have mote installed).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from rich.progress import Progress

from mote.accel.dla.cost import CATEGORIES, JobCost
from mote.accel.loader import accelerator_class, find_accelerator
from mote.config import parse_settings
from mote.errors import MoteError
from mote.ir import Graph
from mote.ops import OPS
from mote.outputs import check_output_root
from mote.passes.offload import offload

DASK_CONNECT_TIMEOUT = "10s"
_GRAPHS: dict[str, Graph] = {}  # per process: each model is loaded once


def points(sweep: dict[str, list[str]]) -> list[dict[str, str]]:
    keys = list(sweep)
    return [dict(zip(keys, values)) for values in itertools.product(*(sweep[k] for k in keys))]


def spec(accel: str, settings: dict[str, str]) -> str:
    """`accel` with a point's settings appended (after its own settings, if it has some)."""
    if not settings:
        return accel
    joiner = "," if "=" in accel.rsplit(":", 1)[-1] else ":"
    return accel + joiner + ",".join(f"{k}={v}" for k, v in settings.items())


def check_sweep(accel: str, settings: dict[str, list[str]]) -> None:
    """Before sweeping: every key is a field of the accelerator's Config and every value parses to that
    field's type (and passes the Config's own checks), so a typo fails at once, not per point."""
    cls, fixed = accelerator_class(accel)
    names = [f.name for f in dataclasses.fields(cls.Config)]
    for key, values in settings.items():
        if key not in names:
            raise MoteError(f"--sweep {key}: {cls.name} has no setting {key!r}; its settings are {', '.join(names)}")
        if key in (item.partition("=")[0].strip() for item in fixed.split(",")):
            raise MoteError(f"--sweep {key}: also set in --accel {accel}; give it in one place")
        for value in values:
            parse_settings(cls.Config, ",".join(filter(None, [fixed, f"{key}={value}"])), f"--sweep {key}")


def _graph(model: str) -> Graph:
    if model not in _GRAPHS:
        from mote.frontend import load
        _GRAPHS[model] = load(Path(model))
    return _GRAPHS[model]


def evaluate(model: str, accel: str, settings: dict[str, str]) -> dict[str, Any]:
    """One point: the cost model's figures for `model` on the configured accelerator."""
    row: dict[str, Any] = {"model": Path(model).stem, **settings}
    try:
        accelerator = find_accelerator(spec(accel, settings))
        graph = offload(_graph(model), accelerator)
        total = JobCost()
        jobs = tiled = reused = 0
        for node in graph.nodes:
            if node.op != "accel":
                continue
            info = OPS["accel"].prepare(node).info
            cost = info.get("cost")
            if isinstance(cost, JobCost):
                total.add(cost)
            else:
                total.cycles += int(info.get("cycles", 0))
            jobs += 1
            tiled += int(info.get("tiles", 1) > 1)
            reused += int(bool(info.get("input_resident")))
        cpu = sum(1 for n in graph.nodes if n.op not in ("accel", "layout_transform"))
        row.update(status="ok", cycles=total.cycles, utilization=round(total.utilization, 4), macs=total.macs,
                   jobs=jobs, cpu_nodes=cpu, tiled_jobs=tiled, resident_inputs=reused,
                   **{c: total.by_category.get(c, 0) for c in CATEGORIES})
    except MoteError as e:
        row.update(status=str(e), cycles=None)
    return row


def _evaluate_args(args: tuple[str, str, dict[str, str]]) -> dict[str, Any]:
    return evaluate(*args)


def _evaluate_chunk(tasks: list[tuple[str, str, dict[str, str]]]) -> list[dict[str, Any]]:
    return [evaluate(*t) for t in tasks]


def sweep(models: list[Path], accel: str, settings: dict[str, list[str]], workers: int | None = None,
          progress: bool = True, dask: str | None = None) -> tuple[list[dict[str, Any]], float]:
    """Every point for every model; returns the rows (in order) and the seconds it took."""
    tasks = [(str(m.resolve()), accel, p) for m in models for p in points(settings)]
    workers = workers if workers is not None else min(os.cpu_count() or 1, max(len(tasks) // 8, 1))
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    client = _dask_client(dask) if dask is not None else None  # before the progress bar: a bad address is one line
    with Progress(transient=True, disable=not progress) as bar:
        task = bar.add_task(f"exploring {len(tasks)} points", total=len(tasks))
        if client is not None:
            rows = _on_dask(client, tasks, lambda n: bar.advance(task, n))
        elif workers <= 1:
            for t in tasks:
                rows.append(evaluate(*t))
                bar.advance(task)
        else:
            with ProcessPoolExecutor(workers) as pool:
                for row in pool.map(_evaluate_args, tasks, chunksize=max(len(tasks) // (workers * 8), 1)):
                    rows.append(row)
                    bar.advance(task)
    return rows, time.perf_counter() - start


def _dask_client(address: str) -> Any:
    from distributed import Client

    try:
        return Client(address, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as e:  # unreachable, or an address Dask cannot parse
        detail = " ".join(str(e).split()) or type(e).__name__
        raise MoteError(f"--dask {address}: cannot reach a Dask scheduler there ({detail}); start one with `dask "
                        "scheduler` and `dask worker ADDRESS`, or leave --dask out to use the local cores") from None


def _on_dask(client: Any, tasks: list[tuple[str, str, dict[str, str]]],
             advance: Callable[[int], None]) -> list[dict[str, Any]]:
    """The tasks in chunks on the Dask cluster `client` is connected to, results in task order."""
    from distributed import as_completed

    with client:
        workers = max(sum(client.nthreads().values()), 1)
        size = max(len(tasks) // (workers * 8), 1)
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        futures = client.map(_evaluate_chunk, chunks, pure=False)
        sizes = {f.key: len(c) for f, c in zip(futures, chunks)}
        for future in as_completed(futures):
            advance(sizes[future.key])
        return [row for chunk in client.gather(futures) for row in chunk]


def explore(models: list[Path], accel: str, sweep_values: dict[str, list[str]], out: Path, verify: int = 0,
            workers: int | None = None, show: bool = True, dask: str | None = None) -> list[dict[str, Any]]:
    """`mote explore`: sweep, print the table, write results.csv, results.json and the PNG plots, and
    with `verify` > 0 re-run that many sampled points on the virtual platform; `dask`: the address of a
    Dask scheduler to sweep on instead of the local cores."""
    from mote.explore import plots, report
    from mote.explore import verify as verifying
    check_sweep(accel, sweep_values)
    rows, seconds = sweep(models, accel, sweep_values, workers, progress=show, dask=dask)
    checks = verifying.verify(models, accel, rows, verify) if verify else []
    check_output_root(out, "--out")
    report.write(rows, checks, seconds, out)
    plots.draw(rows, list(sweep_values), out)
    if show:
        report.show(rows, checks, seconds, list(sweep_values))
    return rows
