"""The `mote` command: a thin layer over mote.pipeline."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from mote import pipeline
from mote.accel import find_accelerator
from mote.accel.check import check_accelerator
from mote.accel.partition import partition, regions
from mote.config import parse_settings, parse_size
from mote.errors import MoteError
from mote.frontend import load
from mote.onnx_run import parse_input_shapes
from mote.ops.registry import Core
from mote.quantize import METHODS, quantize_model
from mote.sim.cycles import CoreModel
from mote.targets.rv32 import Rv32Config
from mote.targets.rv32.toolchain import CHOICES as CC_CHOICES


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except MoteError as e:
        print(f"mote: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mote: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mote", description="Compile quantized neural networks to bare-metal C.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="write a standalone C project for a model")
    p.add_argument("model", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True, help="project directory to write")
    p.add_argument("--kernels", choices=[c.value for c in Core], default=Core.VECTOR.value,
                   help="for a CPU whose compiler vectorizes (vector, the default) or a scalar MCU core (scalar)")
    p.set_defaults(func=_compile)

    p = sub.add_parser("run", help="compile, build, run on a target and check against the reference")
    _add_run_arguments(p)
    p.add_argument("--save-outputs", type=Path, metavar="OUT.npz", help="write the outputs the target computed")
    p.set_defaults(func=_run)

    p = sub.add_parser("profile", help="per-layer instructions and cycles on the virtual platform")
    _add_run_arguments(p, default_target="rv32")
    p.set_defaults(func=_profile)

    p = sub.add_parser("quantize", help="post-training int8 quantization of a float ONNX model (onnxruntime)")
    p.add_argument("model", type=Path)
    p.add_argument("--calib", type=Path, required=True, help=".npz or a directory of .npy, keyed by input name")
    p.add_argument("-o", "--output", type=Path, required=True, help="the quantized (QDQ) .onnx to write")
    p.add_argument("--method", default="MinMax", choices=METHODS, help="calibration method (default MinMax)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_quantize)

    p = sub.add_parser("partition", help="what runs on the accelerator, what on the CPU, and why")
    p.add_argument("model", type=Path, nargs="?", help="a .tflite model (default: the bundled digits CNN)")
    p.add_argument("--accel", required=True, metavar="NAME[:KEY=VALUE,...]")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_partition)

    p = sub.add_parser("explore", help="design-space exploration of an accelerator with its cost model")
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL")
    p.add_argument("--accel", required=True, metavar="NAME[:KEY=VALUE,...]")
    p.add_argument("--sweep", nargs="+", default=[], metavar="KEY=V1,V2", help="values to sweep, e.g. pes=64,128")
    p.add_argument("--out", type=Path, default=Path("results"), help="directory for results.csv/json and plots")
    p.add_argument("--verify", type=int, default=0, metavar="N", help="re-run N sampled points on the VP")
    p.add_argument("--dask", metavar="ADDRESS", help="sweep on the Dask scheduler at ADDRESS (e.g. tcp://host:8786)")
    p.add_argument("--json", action="store_true", help="print one JSON array")
    p.set_defaults(func=_explore)

    accel = sub.add_parser("accel", help="write or check an accelerator").add_subparsers(dest="accel_command",
                                                                                          required=True)
    p = accel.add_parser("new", help="write a working accelerator package to start from")
    p.add_argument("name", help="a Python identifier, e.g. my_npu")
    p.add_argument("-o", "--output", type=Path, default=Path("."), help="directory to create it in")
    p.set_defaults(func=_accel_new)
    p = accel.add_parser("check", help="each pattern's functional model against the reference, on random nodes")
    p.add_argument("accel", metavar="NAME[:KEY=VALUE,...]")
    p.add_argument("--trials", type=int, default=20, help="random nodes per pattern (default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_accel_check)
    return parser


def _add_run_arguments(p: argparse.ArgumentParser, default_target: str = "host") -> None:
    p.add_argument("model", type=Path, nargs="?", help="a .tflite model (default: the bundled digits CNN)")
    p.add_argument("--target", default=default_target, choices=pipeline.TARGETS)
    p.add_argument("--input", type=Path, help=".npy (one input) or .npz keyed by input name")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--keep", type=Path, metavar="DIR", help="keep the built project under DIR")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    onnx = p.add_argument_group("ONNX models")
    onnx.add_argument("--calib", type=Path, help="calibration data (.npz or a directory of .npy) to quantize a "
                                                 "float ONNX model first")
    onnx.add_argument("--calib-method", default="MinMax", choices=METHODS)
    onnx.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...",
                      help="fix a dynamic input shape, e.g. input=1,3,32,32 (repeatable)")
    rv32 = p.add_argument_group("rv32 target")
    rv32.add_argument("--cc", default="auto", choices=CC_CHOICES,
                      help="cross compiler: riscv64-unknown-elf-gcc when present, else zig (default auto)")
    rv32.add_argument("--opt", default="-O2", choices=("-O2", "-Os"), help="optimization level (default -O2)")
    rv32.add_argument("--flash", type=_size, default=2 << 20, help="flash size, e.g. 2MiB (default)")
    rv32.add_argument("--ram", type=_size, default=512 << 10, help="RAM size, e.g. 512KiB (default)")
    rv32.add_argument("--stack", type=_size, default=16 << 10, help="stack size, e.g. 16KiB (default)")
    rv32.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]",
                      help="offload to an accelerator: a built-in (qvanilla) or module:Class, with settings")
    rv32.add_argument("--instruction-limit", type=int, help="stop runaway firmware after this many instructions")
    rv32.add_argument("--core", default="", metavar="KEY=CYCLES,...",
                      help="cycle costs of the core model, e.g. load=1,mulh=1 (classes: alu, load, store, mul, "
                           "mulh, div, branch_taken, branch_not_taken, jump)")


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _report(args: argparse.Namespace) -> pipeline.RunReport:
    core = parse_settings(CoreModel, args.core, "--core")
    if args.core:
        core = dataclasses.replace(core, name=f"{core.name}; with {args.core}")
    config = Rv32Config(flash_bytes=args.flash, ram_bytes=args.ram, stack_bytes=args.stack, cc=args.cc, opt=args.opt,
                        core=core)
    accelerator = find_accelerator(args.accel) if args.accel else None
    return pipeline.run(args.model or pipeline.default_model(), args.target, args.input, args.seed, args.keep,
                        config, args.instruction_limit, accelerator, args.calib, args.calib_method,
                        parse_input_shapes(args.input_shape))


def _compile(args: argparse.Namespace) -> int:
    compiled = pipeline.compile_model(args.model, core=Core(args.kernels))
    compiled.write(args.output)
    print(f"wrote {args.output}/: {len(compiled.layers)} layers, arena {compiled.plan.size} B "
          f"(disjoint-buffer bound {compiled.plan.lower_bound} B), weights {compiled.weights_bytes} B, "
          f"{compiled.macs:,} MACs")
    return 0


def _run(args: argparse.Namespace) -> int:
    report = _report(args)
    if args.save_outputs:
        np.savez(args.save_outputs, **report.outputs)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        _print_run(report)
    return 0 if report.bit_exact else 1


def _profile(args: argparse.Namespace) -> int:
    if args.target != "rv32":
        raise MoteError("profile needs the virtual platform: use --target rv32")
    report = _report(args)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        _print_profile(report)
    return 0 if report.bit_exact else 1


def _quantize(args: argparse.Namespace) -> int:
    report = quantize_model(args.model, args.calib, args.output, args.method, parse_input_shapes(args.input_shape))
    if args.json:
        print(json.dumps(report))
    else:
        print(f"wrote {args.output}: " + ", ".join(f"{k} {v}" for k, v in report.items()))
    return 0


def _partition(args: argparse.Namespace) -> int:
    from rich.table import Table

    accelerator = find_accelerator(args.accel)
    model = args.model or pipeline.default_model()
    decisions = partition(load(model), accelerator)
    rows = [{"index": i, "name": d.node.name, "op": d.node.op,
             "runs_on": accelerator.name if d.offloaded else "cpu",
             "pattern": d.pattern.name if d.pattern else None,
             "why_not": None if d.offloaded else d.why_not(), "rejected": d.rejected}
            for i, d in enumerate(decisions)]
    offloaded = sum(r["runs_on"] != "cpu" for r in rows)
    summary = {"model": str(model), "accelerator": accelerator.label, "offloaded": offloaded,
               "cpu": len(rows) - offloaded, "regions": len(regions(decisions)), "nodes": rows}
    if args.json:
        print(json.dumps(summary))
        return 0
    table = Table(title=f"{Path(model).name} partitioned for {accelerator.label}")
    for column in ("#", "node", "op", "runs on", "pattern / why not"):
        table.add_column(column, justify="right" if column == "#" else "left")
    for r in rows:
        table.add_row(str(r["index"]), _short(r["name"]), r["op"], r["runs_on"], r["pattern"] or r["why_not"])
    console = _console()
    console.print(table)
    count = summary["regions"]
    console.print(f"{offloaded} nodes offloaded in {count} region{'' if count == 1 else 's'}, "
                  f"{summary['cpu']} on the CPU")
    return 0


def _explore(args: argparse.Namespace) -> int:
    from mote.explore import explore

    sweep = {}
    for item in args.sweep:
        key, sep, values = item.partition("=")
        if not sep or not values:
            raise MoteError(f"--sweep {item!r}: write KEY=V1,V2,... (e.g. pes=64,128)")
        sweep[key] = values.split(",")
    rows = explore(args.models, args.accel, sweep, args.out, verify=args.verify, show=not args.json, dask=args.dask)
    if args.json:
        print(json.dumps(rows))
    return 0


def _accel_new(args: argparse.Namespace) -> int:
    from mote.accel.skeleton import write_skeleton

    path = write_skeleton(args.name, args.output)
    print(f"wrote {path}/: edit {args.name}/accelerator.py, then run its test: python -m pytest {path}/tests")
    return 0


def _accel_check(args: argparse.Namespace) -> int:
    accelerator = find_accelerator(args.accel)
    results = check_accelerator(accelerator, trials=args.trials)
    if args.json:
        print(json.dumps({"accelerator": accelerator.label, "patterns": [
            {"pattern": r.pattern, "trials": r.trials, "mismatches": r.mismatches, "ok": r.ok,
             "first_failure": r.first_failure} for r in results]}))
    else:
        for r in results:
            verdict = "ok" if r.ok else ("no random node accepted" if not r.trials else "MISMATCH")
            print(f"{accelerator.name} pattern {r.pattern}: {r.trials - r.mismatches}/{r.trials} random nodes "
                  f"bit-exact with the reference: {verdict}")
    bad = [r for r in results if not r.ok]
    if bad:
        r = bad[0]
        detail = f"{r.mismatches} of {r.trials} random nodes differ from the reference, first: {r.first_failure}" \
            if r.trials else "its predicates accepted none of the random nodes"
        raise MoteError(f"accelerator {accelerator.name}: pattern {r.pattern!r}: {detail}")
    return 0


def _short(name: str, width: int = 36) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _print_run(report: pipeline.RunReport) -> None:
    from rich.table import Table

    data = report.to_json()
    table = Table(title=f"{Path(report.model).name} on {report.target}")
    for column in ("#", "layer", "op", "kernel", "MACs"):
        table.add_column(column, justify="right" if column in ("#", "MACs") else "left")
    for layer in data["layers"]:
        table.add_row(str(layer["index"]), _short(layer["name"]), layer["op"], layer["kernel"], f"{layer['macs']:,}")
    console = _console()
    console.print(table)
    _print_summary(console, data, report)


def _console() -> Console:
    """Wide enough for the tables when the output is not a terminal (rich would assume 80 columns)."""
    return Console() if sys.stdout.isatty() else Console(width=160)


def _print_profile(report: pipeline.RunReport) -> None:
    from rich.table import Table

    data = report.to_json()
    table = Table(title=f"{Path(report.model).name} on the rv32 virtual platform")
    for column in ("#", "layer", "op", "kernel", "instructions", "cycles", "share", "MACs", "instr/MAC"):
        table.add_column(column, justify="left" if column in ("layer", "op", "kernel") else "right")
    for layer in data["layers"]:
        if "instructions" not in layer:  # an in-place layer runs no code
            continue
        per_mac = layer["instructions_per_mac"]
        table.add_row(str(layer["index"]), _short(layer["name"], 28), layer["op"], layer["kernel"],
                      f"{layer['instructions']:,}", f"{layer['cycles']:,}", f"{layer['share']:.1%}",
                      f"{layer['macs']:,}", f"{per_mac:.2f}" if per_mac else "-")
    console = _console()
    console.print(table)
    _print_summary(console, data, report)


def _print_summary(console: Console, data: dict[str, Any], report: pipeline.RunReport) -> None:
    verdict = "[green]bit-exact[/green]" if report.bit_exact else f"[red]{report.mismatches} mismatches[/red]"
    print_ = console.print
    print_(f"outputs vs reference interpreter: {verdict}")
    print_(f"arena {data['arena_bytes']:,} B (disjoint-buffer bound {data['arena_lower_bound_bytes']:,} B), "
           f"weights {data['weights_bytes']:,} B, {data['macs']:,} MACs")
    if report.target == "host":
        print_(f"{data['host_us_per_inference']:.1f} µs per inference on the host ({data['cc']})")
    else:
        per_mac = f", {data['instructions_per_mac']:.2f} per MAC" if data["instructions_per_mac"] else ""
        print_(f"{data['instructions']:,} instructions{per_mac}, {data['cycles']:,} cycles ({data['core']}); "
               f"ROM {data['rom_bytes']:,} B, RAM {data['ram_bytes']:,} B + stack {data['stack_bytes']:,} B used; "
               f"simulated in {data['sim_seconds']:.2f} s ({data['sim_mips']:.0f} MIPS); built with {data['cc']} "
               f"{data['cflags']}")


if __name__ == "__main__":
    sys.exit(main())
