"""The `mote` command: a thin layer over mote.pipeline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from mote import pipeline
from mote.errors import MoteError


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
    p.set_defaults(func=_compile)

    p = sub.add_parser("run", help="compile, build, run on a target and check against the reference")
    p.add_argument("model", type=Path, nargs="?", help="a .tflite model (default: the bundled digits CNN)")
    p.add_argument("--target", default="host", choices=pipeline.TARGETS)
    p.add_argument("--input", type=Path, help=".npy (one input) or .npz keyed by input name")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--save-outputs", type=Path, metavar="OUT.npz", help="write the outputs the target computed")
    p.add_argument("--keep", type=Path, metavar="DIR", help="keep the built project under DIR")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)
    return parser


def _compile(args: argparse.Namespace) -> int:
    compiled = pipeline.compile_model(args.model)
    compiled.write(args.output)
    print(f"wrote {args.output}/: {len(compiled.layers)} layers, arena {compiled.plan.size} B "
          f"(lower bound {compiled.plan.lower_bound} B), weights {compiled.weights_bytes} B, "
          f"{compiled.macs:,} MACs")
    return 0


def _run(args: argparse.Namespace) -> int:
    model = args.model or pipeline.default_model()
    report = pipeline.run(model, args.target, args.input, args.seed, args.keep)
    if args.save_outputs:
        np.savez(args.save_outputs, **report.outputs)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        _print_report(report)
    return 0 if report.bit_exact else 1


def _print_report(report: pipeline.RunReport) -> None:
    from rich.console import Console
    from rich.table import Table

    data = report.to_json()
    table = Table(title=f"{Path(report.model).name} on {report.target}")
    for column in ("#", "layer", "op", "kernel", "MACs"):
        table.add_column(column, justify="right" if column in ("#", "MACs") else "left")
    for layer in data["layers"]:
        name = layer["name"] if len(layer["name"]) <= 40 else "…" + layer["name"][-39:]
        table.add_row(str(layer["index"]), name, layer["op"], layer["kernel"], f"{layer['macs']:,}")
    console = Console()
    console.print(table)
    verdict = "[green]bit-exact[/green]" if report.bit_exact else f"[red]{report.mismatches} mismatches[/red]"
    console.print(f"outputs vs reference interpreter: {verdict}")
    console.print(f"arena {data['arena_bytes']:,} B (lower bound {data['arena_lower_bound_bytes']:,} B), "
                  f"weights {data['weights_bytes']:,} B, {data['macs']:,} MACs, "
                  f"{data['host_us_per_inference']:.1f} µs per inference on the host")


if __name__ == "__main__":
    sys.exit(main())
