"""Runs fuzz cases in worker processes with a time limit per case: a case that hangs is killed and counted,
one that kills its worker (a native crash) is counted, and the campaign goes on with a fresh worker."""

from __future__ import annotations

import faulthandler
import multiprocessing
import resource
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from tests.fuzzing.cases import Case, Outcome, run_case

CASE_TIMEOUT_S = 10.0
BUILD_TIMEOUT_S = 120.0  # a case that also builds the generated C with the system compiler
WORKER_MEMORY_BYTES = 4 << 30  # a mutant's huge shape becomes a MemoryError, not a machine out of memory
BUILDING = "building"  # a worker's notice that the case now builds C: BUILD_TIMEOUT_S more for it
EXAMPLES_PER_SITE = 3
FAILURES = ("traceback", "bad_message", "hang", "crash")


def _worker(conn: Connection, run: Callable[..., Outcome]) -> None:
    # A soft limit only: the C build lifts it for the sanitizers, which reserve terabytes of address space.
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_AS)[1]))
    faulthandler.disable()  # a native crash is counted by the campaign, its Python stack dump is noise
    warnings.simplefilter("ignore")  # numpy's overflow warnings on extreme scales: the outcome is what counts
    while True:
        case = conn.recv()
        if case is None:
            return
        conn.send(run(case, lambda: conn.send(BUILDING)))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    case: Case | None = None
    started: float = 0.0
    limit: float = CASE_TIMEOUT_S


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return sum(o.kind == kind for o in self.outcomes)

    def tflm(self, verdict: str) -> int:
        return sum(o.tflm == verdict for o in self.outcomes)

    def c(self, verdict: str) -> int:
        return sum(o.c == verdict for o in self.outcomes)

    def failures(self) -> list[Outcome]:
        """Everything the goals forbid: tracebacks, messages that are not one line, hangs, crashes, accepted
        mutants that differ from TFLite Micro, and generated C that does not build or differs."""
        return [o for o in self.outcomes if o.kind in FAILURES or o.tflm == "mismatch"
                or o.c in ("mismatch", "build_failed", "run_failed") or o.cli not in ("", "ok")]

    def sites(self) -> list[tuple[str, int, list[Outcome]]]:
        """Distinct failure sites, most frequent first, each with its count and its first few examples."""
        examples: dict[str, list[Outcome]] = {}
        counts: Counter[str] = Counter()
        for o in self.failures():
            if o.kind in FAILURES:
                key = f"{o.kind}: {o.site}"
            elif o.tflm == "mismatch":
                key = "TFLite Micro mismatch"
            elif o.c not in ("", "match"):
                key = f"generated C: {o.c}"
            else:
                key = f"command line: {o.cli.split(':')[0]}"
            counts[key] += 1
            examples.setdefault(key, [])
            if len(examples[key]) < EXAMPLES_PER_SITE:
                examples[key].append(o)
        return [(key, n, examples[key]) for key, n in counts.most_common()]

    def counts(self) -> dict[str, int]:
        return {
            "cases": len(self.outcomes),
            "rejected": self.count("rejected"),
            "accepted": self.count("accepted"),
            "matched TFLite Micro": self.tflm("match"),
            "mismatched TFLite Micro": self.tflm("mismatch"),
            "TFLite Micro refused": self.tflm("refused"),
            "TFLite Micro crashed": self.tflm("crashed"),
            "C built and matched": self.c("match"),
            "C mismatched": self.c("mismatch"),
            "C did not build": self.c("build_failed"),
            "C failed under ASan/UBSan": self.c("run_failed"),
            "tracebacks": self.count("traceback"),
            "messages not one line": self.count("bad_message"),
            "hangs": self.count("hang"),
            "crashes": self.count("crash"),
            "command line checked": sum(o.cli != "" for o in self.outcomes),
            "command line wrong": sum(o.cli not in ("", "ok") for o in self.outcomes),
        }

    def report(self) -> str:
        lines = [f"{name}: {n}" for name, n in self.counts().items()]
        lines.append(f"seconds: {self.seconds:.0f}")
        accepted = Counter(o.seed for o in self.outcomes if o.kind == "accepted")
        lines.append("accepted mutants per seed model: " + ", ".join(f"{k} {n}" for k, n in sorted(accepted.items())))
        sites = self.sites()
        lines.append(f"distinct failure sites: {len(sites)}")
        for key, n, examples in sites:
            lines.append(f"  {n:6d}  {key}")
            lines += [f"          e.g. --seed {o.case.campaign_seed} --case {o.case.number}: {o.seed}; "
                      f"{o.edits[:160]}; {o.detail[:160]!r}" for o in examples]
        return "\n".join(lines)


def _start(ctx: Any, run: Callable[..., Outcome]) -> _Worker:
    parent, child = ctx.Pipe()
    process = ctx.Process(target=_worker, args=(child, run), daemon=True)
    process.start()
    child.close()
    return _Worker(process, parent)


def _stop(worker: _Worker) -> None:
    worker.process.kill()
    worker.process.join()
    worker.conn.close()


def run_campaign(cases: Iterable[Case], workers: int = 2, timeout: float = CASE_TIMEOUT_S,
                 progress: Callable[[Summary], None] | None = None,
                 run: Callable[..., Outcome] = run_case) -> Summary:
    """Every case through `workers` processes running `run(case, before_build)`; outcomes in completion order."""
    ctx = multiprocessing.get_context("fork")  # workers inherit the imported modules and the seed models
    pending = iter(cases)
    summary, start = Summary(), time.monotonic()
    pool = [_start(ctx, run) for _ in range(workers)]
    try:
        busy = True
        while busy:
            for w in pool:
                if w.case is None:
                    w.case = next(pending, None)
                    w.started, w.limit = time.monotonic(), timeout
                    if w.case is not None:
                        w.conn.send(w.case)
            busy = any(w.case is not None for w in pool)
            if not busy:
                break
            ready = wait([w.conn for w in pool if w.case is not None], timeout=0.5)
            for i, w in enumerate(pool):
                if w.case is None:
                    continue
                outcome = None
                if w.conn in ready:
                    try:
                        outcome = w.conn.recv()
                    except (EOFError, OSError):
                        w.process.join(5)
                        outcome = _lost(w, "crash", f"worker died (exit {w.process.exitcode})")
                elif time.monotonic() - w.started > w.limit:
                    outcome = _lost(w, "hang", f"over {w.limit:.0f} s")
                if outcome == BUILDING:
                    w.limit = timeout + BUILD_TIMEOUT_S
                    continue
                if outcome is None:
                    continue
                if outcome.kind in ("crash", "hang"):
                    _stop(w)
                    pool[i] = w = _start(ctx, run)
                summary.outcomes.append(outcome)
                w.case = None
                if progress:
                    progress(summary)
    finally:
        for w in pool:
            try:
                w.conn.send(None)
            except OSError:
                pass
            _stop(w)
    summary.seconds = time.monotonic() - start
    return summary


def _lost(worker: _Worker, kind: str, detail: str) -> Outcome:
    case = worker.case
    assert case is not None
    try:
        seed, _, edits = case.mutant()
    except Exception:  # noqa: BLE001 - the description is a courtesy
        seed, edits = "?", "?"
    return Outcome(case, kind, site=detail if kind == "crash" else "per-case time limit",
                   detail=detail, seed=seed, edits=edits)
