"""`mote explore`: sweep an accelerator's settings and the platform's (cores, L1, DMA bandwidth) over models, or
search them (NSGA-II), with a results store; tables, plots and an optional page (mote.explore)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mote.cli_args import bounded_int
from mote.cli_platform import find_platform
from mote.errors import MoteError
from mote.frontend import check_regular_file
from mote.outputs import check_output_file, check_output_root
from mote.targets import TARGETS
from mote.terminal import plain


def add_explore_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explore", help="design-space exploration of an accelerator and the platform: cost model + "
                                       "CPU cycles")
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL")
    p.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]|none",
                   help="the accelerator whose settings are swept (default: the platform's, if it has one; none: "
                        "no accelerator, the whole model on the CPU)")
    p.add_argument("--platform", metavar="NAME|FILE",
                   help="the platform the CPU work runs on (default mcu), varied by the keys cores, l1, dma_bw")
    p.add_argument("--sweep", nargs="+", default=[], metavar="KEY[=V1,V2]",
                   help="settings to sweep, e.g. pes=64,128 (keys: the accelerator's settings, a key alone sweeping "
                        "the values it declares for it; and the platform's: cores=1,2,4,8, l1=16KiB,32KiB, "
                        "dma_bw=4,8)")
    p.add_argument("--out", type=Path, default=Path("results"),
                   help="directory for results.csv/json and plots (default ./results; created if missing; files "
                        "of those names in it are replaced, nothing else is touched)")
    p.add_argument("--verify", type=bounded_int(0, 10_000), default=0, metavar="N",
                   help="re-run N sampled points on the VP in timed mode: cost model vs VP cycles, bit-exactness")
    p.add_argument("--verify-target", default="rv32", choices=[n for n, t in TARGETS.items() if t.accelerators],
                   help="the VP core --verify runs on (default rv32)")
    p.add_argument("--dask", metavar="ADDRESS", help="sweep on the Dask scheduler at ADDRESS (e.g. tcp://host:8786)")
    p.add_argument("--store", type=Path, metavar="FILE",
                   help="results store (SQLite): points and CPU runs it holds are not computed again (default "
                        "results.sqlite in --out)")
    p.add_argument("--no-store", action="store_true", help="keep no results store; compute every point")
    p.add_argument("--search", choices=("nsga2",),
                   help="pick points with a multi-objective search (cycles, energy, area) instead of the whole grid")
    p.add_argument("--trials", type=bounded_int(1, 1_000_000), default=100, metavar="N",
                   help="points --search evaluates (default 100)")
    p.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, help="--search's random seed (default 0)")
    p.add_argument("--objective", choices=("cycles", "energy"),
                   help="order the points best first by total cycles or by energy per inference (energy_uj)")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained page (README)")
    p.set_defaults(func=_explore)


def _explore(args: argparse.Namespace) -> int:
    from mote.explore import explore

    for model in args.models:
        check_regular_file(model, "model file")
    sweep: dict[str, list[str]] = {}
    for item in args.sweep:
        key, sep, values = item.partition("=")
        if not key or (sep and (not values or not all(values.split(",")))):
            raise MoteError(f"--sweep {item!r}: write KEY=V1,V2,... (e.g. pes=64,128), or KEY alone")
        if key in sweep:
            raise MoteError(f"--sweep {key}: given twice; list all its values once (e.g. {key}=64,128)")
        sweep[key] = values.split(",") if sep else []  # none: the values the accelerator declares
    if args.html is not None:
        check_output_file(args.html, "--html")
    check_output_root(args.out, "--out", create=False)  # created once there are results (explore checks the
    # sweep's keys and values first, so a typo leaves nothing behind)
    platform = find_platform(args.platform) if args.platform else None
    accel = args.accel
    if accel is None and platform is not None:
        accel = next((slot.accel for slot in platform.accelerators if slot.accel), None)
    if accel is None and not sweep and platform is None:
        raise MoteError("explore: nothing to explore; give --accel NAME with --sweep KEY=V1,V2, or --platform "
                        "NAME with --sweep cores=1,2,4,8 (or l1=..., dma_bw=...)")
    accel = None if accel == "none" else accel
    search = None
    if args.search:
        from mote.explore.search import Search
        search = Search(args.search, args.trials, args.seed)
    if args.store is not None and args.no_store:
        raise MoteError("--store and --no-store: give one of them")
    rows = explore(args.models, accel, sweep, args.out, verify=args.verify, show=not args.json, dask=args.dask,
                   objective=args.objective, platform=platform, verify_target=args.verify_target, store=args.store,
                   use_store=not args.no_store, search=search)
    if args.html is not None:
        from mote.report_html import write_exploration

        write_exploration(args.html, rows, list(sweep), accel, args.out if args.verify else None)
    if args.json:
        print(json.dumps(rows))
    else:
        print(plain(f"wrote {args.out}/: results.csv, results.json and the plots"))
    failed = [r for r in rows if r.get("status") != "ok"]
    if rows and len(failed) == len(rows):
        raise MoteError(f"explore: all {len(rows)} points failed (results in {args.out}/); the first: "
                        f"{failed[0].get('status')}")
    return 0
