"""A 10,000-point DLA exploration resumed from its results store (issue 20): `mote explore` of the AD
model (MLPerf Tiny ToyCar) over pes x sram x mode x dma_bytes_per_cycle (10 x 25 x 2 x 20 points) on the
local cores, first into an empty store (every point costed by the cost model, every distinct CPU workload
run once on the virtual platform), then again over the same store (nothing computed). Goal: the resumed
run takes under 10% of the first run's time. Both runs write the same rows, results.csv/json and plots;
wall-clock seconds, one run each (the first run is long; both are on the same shared machine).

`make bench` can call `report(work)` (benchmarks/run.py); run alone: `python benchmarks/explore_resume.py`."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mote.explore import explore  # noqa: E402
from mote.explore.store import Store  # noqa: E402

MODEL = REPO / "models" / "mlperf-tiny" / "ad01_int8.tflite"
SPACE = {
    "pes": ["4", "8", "12", "16", "24", "32", "48", "64", "96", "128"],
    "sram": [f"{32 * k}KiB" for k in range(1, 26)],
    "mode": ["input", "output"],
    "dma_bytes_per_cycle": [str(n) for n in range(1, 21)],
}
GOAL = 0.10


def measure(work: Path) -> dict[str, float]:
    """Seconds of the first run and of the resumed one, the points, and what the store held after each."""
    out = work / "explore"
    start = time.perf_counter()
    first = explore([MODEL], "dla", SPACE, out, show=False)
    first_s = time.perf_counter() - start
    with Store(out / "results.sqlite") as store:
        stored = len(store)
    start = time.perf_counter()
    again = explore([MODEL], "dla", SPACE, out, show=False)
    resumed_s = time.perf_counter() - start
    with Store(out / "results.sqlite") as store:
        stored_after = len(store)
    same = [{k: v for k, v in r.items()} for r in first] == again
    return {"points": len(first), "ok": sum(r["status"] == "ok" for r in first), "first_s": first_s,
            "resumed_s": resumed_s, "stored": stored, "stored_after": stored_after, "same": same,
            "front": sum(bool(r.get("pareto")) for r in again)}


def report(work: Path) -> list[str]:
    m = measure(work)
    ratio = m["resumed_s"] / m["first_s"]
    verdict = "met" if ratio < GOAL and m["same"] and m["stored_after"] == m["stored"] else "NOT met"
    return [
        "## A 10,000-point DLA exploration resumed from its store (issue 20)", "",
        "`mote explore ad01_int8.tflite --accel dla --sweep pes=(10 values) sram=32KiB..800KiB (25) mode "
        "dma_bytes_per_cycle=1..20` (`benchmarks/explore_resume.py`), local cores, then the same command again "
        f"over its results.sqlite. Goal: the resumed run under {GOAL:.0%} of the first's time: {verdict}.", "",
        "| run | points | seconds | points in the store after |", "|-----|-------:|--------:|------:|",
        f"| first (empty store) | {m['points']:,} ({m['ok']:,} ok) | {m['first_s']:.1f} | {m['stored']:,} |",
        f"| resumed | {m['points']:,} | {m['resumed_s']:.1f} | {m['stored_after']:,} |", "",
        f"Resumed / first: {ratio:.1%}; same rows: {m['same']}; {m['front']} points on the Pareto front "
        "(cycles, energy, area).", "",
    ]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-resume-") as tmp:
        print("\n".join(report(Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
