"""`mote accel`: write an accelerator package (new), check its functional model (check), and bench a
design's RTL against the CPU on the MLPerf Tiny models (bench; mote.explore.rtl_bench)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mote.accel import find_accelerator
from mote.cli_args import bounded_int
from mote.errors import MoteError
from mote.outputs import check_output_file
from mote.passes.accel_check import check_accelerator
from mote.targets import TARGETS, find_target
from mote.terminal import console, markup, plain


def add_accel_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    accel = sub.add_parser("accel", help="write, check or bench an accelerator").add_subparsers(
        dest="accel_command", required=True)
    p = accel.add_parser("new", help="write a working accelerator package to start from")
    p.add_argument("name", help="a Python identifier, e.g. my_npu")
    p.add_argument("-o", "--output", type=Path, default=Path("."),
                   help="directory to create it in (default: the current one); NAME must not exist there yet")
    p.add_argument("--rtl", action="store_true",
                   help="its behaviour in SystemVerilog, simulated with Verilator (docs/rtl.md)")
    p.set_defaults(func=_accel_new)
    p = accel.add_parser("check", help="each pattern's functional model against the reference, on random nodes")
    p.add_argument("accel", metavar="NAME[:KEY=VALUE,...]")
    p.add_argument("--trials", type=bounded_int(1, 100_000), default=20, help="random nodes per pattern (default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_accel_check)
    p = accel.add_parser("bench", help="a design's RTL on the virtual platform against the CPU alone: speed-up, "
                                       "cost model, ROM/RAM, bit-exactness (docs/rtl.md)")
    p.add_argument("designs", nargs="+", type=Path, metavar="DESIGN.sv",
                   help="the accelerator's Verilog/SystemVerilog files, in the order Verilator reads them; its top "
                        "module has the ports of docs/rtl.md")
    p.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]",
                   help="its Python description (registers, patterns, lower, execute, cost): module:Class, "
                        "FILE.py:Class or a built-in (qvanilla-rtl); default: the package holding DESIGN, as "
                        "`mote accel new NAME --rtl` lays it out (NAME/rtl/NAME.sv)")
    p.add_argument("--top", metavar="MODULE", help="the top module (default: the one the class names, else the "
                                                   "module named like the first file)")
    p.add_argument("--models", nargs="+", default=[], metavar="NAME|FILE",
                   help="ad, kws, resnet, vww (the bundled MLPerf Tiny models) or model files (default: the four)")
    p.add_argument("--target", default="rv32", choices=[n for n, t in TARGETS.items() if t.accelerators],
                   help="the virtual platform's core (default rv32)")
    p.add_argument("--seed", type=bounded_int(0, (1 << 63) - 1), default=0, help="seed of the random inputs "
                                                                                 "(default 0)")
    p.add_argument("--cycle-limit", type=bounded_int(1, 1 << 40), metavar="N",
                   help="a job still busy after N cycles fails the run as hung (default: the class's rtl_cycle_limit, "
                        "2^34)")
    p.add_argument("--json", action="store_true", help="print one JSON array, a row per model")
    p.add_argument("--html", type=Path, metavar="REPORT.html", help="also write the table as a self-contained page")
    p.set_defaults(func=_accel_bench)


def _accel_new(args: argparse.Namespace) -> int:
    from mote.accel.skeleton import write_skeleton

    path = write_skeleton(args.name, args.output, rtl=args.rtl)
    edit = f"{args.name}/rtl/{args.name}.sv and " if args.rtl else ""
    print(plain(f"wrote {path}/: edit {edit}{args.name}/accelerator.py, then run its test: "
                f"python -m pytest {path}/tests"))
    if args.rtl:
        print(plain(f"bench it on the MLPerf Tiny models: mote accel bench {path}/rtl/{args.name}.sv"))
    return 0


def _accel_check(args: argparse.Namespace) -> int:
    accelerator = find_accelerator(args.accel)
    results = check_accelerator(accelerator, trials=args.trials, weight_bits=accelerator.weight_bits)
    if args.json:
        print(json.dumps({"accelerator": accelerator.label, "patterns": [
            {"pattern": r.pattern, "trials": r.trials, "mismatches": r.mismatches, "ok": r.ok,
             "first_failure": r.first_failure} for r in results]}))
    else:
        for r in results:
            verdict = "ok" if r.ok else ("no random node accepted" if not r.trials else "MISMATCH")
            print(plain(f"{accelerator.name} pattern {r.pattern}: {r.trials - r.mismatches}/{r.trials} random nodes "
                        f"bit-exact with the reference: {verdict}"))
    bad = [r for r in results if not r.ok]
    if bad:
        r = bad[0]
        detail = f"{r.mismatches} of {r.trials} random nodes differ from the reference, first: {r.first_failure}" \
            if r.trials else "its predicates accepted none of the random nodes"
        raise MoteError(f"accelerator {accelerator.name}: pattern {r.pattern!r}: {detail}")
    return 0


def _accel_bench(args: argparse.Namespace) -> int:
    from mote.accel.rtl import rtl_library
    from mote.accel.rtl.design import check_design_files, file_spec, package_of, package_spec, with_design
    from mote.explore.rtl_bench import bench, model_paths

    check_design_files(args.designs)
    if args.html is not None:
        check_output_file(args.html, "--html")
    paths = model_paths(args.models)
    if args.accel:
        package_of(args.designs[0])  # `--accel my_npu:MyNpu:key=value` finds the package beside its design
    spec = file_spec(args.accel) if args.accel else package_spec(args.designs[0])
    accel = with_design(find_accelerator(spec), args.designs, args.top)
    if args.cycle_limit is not None:
        accel.rtl_cycle_limit = args.cycle_limit  # type: ignore[attr-defined]
    rtl_library(accel)  # build (or load) the design first: its errors before any model runs
    target = find_target(args.target)

    def progress(row: dict[str, Any]) -> None:
        if not args.json:
            print(plain(f"{row['model']}: done in {row['seconds']} s"), file=sys.stderr)

    rows = bench(paths, accel, target, args.seed, progress)
    if args.html is not None:
        from mote.report_html.rtl_bench_page import write_rtl_bench_page

        write_rtl_bench_page(args.html, rows, accel, args.designs)
    if args.json:
        print(json.dumps(rows))
    else:
        _print_bench(rows, accel, args.designs)
    return 0 if all(r["bit_exact_with_cpu_only"] and r["bit_exact_with_reference"] for r in rows) else 1


def _print_bench(rows: list[dict[str, Any]], accel: Any, designs: list[Path]) -> None:
    from rich import box
    from rich.table import Table

    from mote.explore.rtl_bench import HEADER_LINES, notes, table_rows

    table = Table(title=markup(f"{accel.name} as RTL ({', '.join(d.name for d in designs)}, top {accel.rtl_top}) "
                               "against the CPU alone"), box=box.SIMPLE_HEAD)
    for i, lines in enumerate(HEADER_LINES):
        table.add_column("\n".join(lines), justify="left" if i == 0 else "right", no_wrap=True)
    for cells in table_rows(rows):
        table.add_row(*(markup(c) for c in cells))
    out = console()
    out.print(table)
    out.print("Cycles per inference on the virtual platform; the CPU waits while the accelerator runs. Cost model "
              "vs RTL: the accelerator's cost() against the RTL's cycles, over the model and on its worst layer.")
    for line in notes(rows, accel):
        out.print(markup(line))
