"""`make fuzz`: a long mutation-fuzz campaign of mote's TFLite path; the counts go into benchmarks/RESULTS.md.

    python scripts/fuzz.py --cases 20000            # the campaign; prints the summary and the failure sites
    python scripts/fuzz.py --seed 1 --case 4711     # one case again, in this process, with its full traceback
    python scripts/fuzz.py --cases 2000 --no-results --save-failures DIR   # the failing mutants as files

Goals (issue 14): no tracebacks, no hangs, no crashes, and every accepted mutant bit-exact with TFLite Micro.
Exit status 1 when any case failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# One thread per worker process: two workers share the machine's cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fuzzing.campaign import Summary, run_campaign  # noqa: E402
from tests.fuzzing.cases import Case, replay  # noqa: E402
from tests.fuzzing.results import BUILD_EVERY, CLI_EVERY, results_section, write_results  # noqa: E402
from tests.fuzzing.seeds import seed_models  # noqa: E402

RESULTS = REPO / "benchmarks" / "RESULTS.md"


def campaign_cases(seed: int, count: int) -> list[Case]:
    return [Case(seed, n, build_c=n % BUILD_EVERY == BUILD_EVERY - 1, check_cli=n % CLI_EVERY == 3)
            for n in range(count)]


def save_failures(summary: Summary, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for o in summary.failures():
        _, data, _ = o.case.mutant()
        (directory / f"seed{o.case.campaign_seed}-case{o.case.number}-{o.kind}.tflite").write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20000, help="number of mutants (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="campaign seed: the same seed, the same mutants")
    parser.add_argument("--case", type=int, help="replay this one case in process, with its traceback")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-results", action="store_true", help="do not write benchmarks/RESULTS.md")
    parser.add_argument("--sites-file", type=Path, help="also write the summary and failure sites to this file")
    parser.add_argument("--save-failures", type=Path, metavar="DIR", help="write each failing mutant to DIR")
    args = parser.parse_args(argv)
    if args.case is not None:
        return replay(Case(args.seed, args.case))
    if args.cases < 1 or args.workers < 1:
        parser.error("--cases and --workers must be at least 1")
    seed_models()  # read once, before the workers fork

    last = [time.monotonic()]

    def progress(summary: Summary) -> None:
        if time.monotonic() - last[0] > 30:
            last[0] = time.monotonic()
            done, failed = len(summary.outcomes), len(summary.failures())
            print(f"{done}/{args.cases} cases, {failed} failures", file=sys.stderr, flush=True)

    summary = run_campaign(campaign_cases(args.seed, args.cases), workers=args.workers, progress=progress)
    report = summary.report()
    print(report)
    if args.sites_file:
        args.sites_file.write_text(report + "\n")
    if args.save_failures:
        save_failures(summary, args.save_failures)
    if not args.no_results:
        command = f"python scripts/fuzz.py --cases {args.cases} --seed {args.seed}"
        write_results(RESULTS, results_section(summary, command))
    return 1 if summary.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
