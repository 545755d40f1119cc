"""The `mote` command: a thin layer over mote.pipeline."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np

from mote import pipeline
from mote.accel import find_accelerator
from mote.accel.partition import partition, regions
from mote.cli_accel import add_accel_command
from mote.cli_args import Parser, bounded_int, clock_mhz, joined_opt_values, settle_rv32_options, size
from mote.cli_compile import add_compile_command
from mote.cli_explore import add_explore_command
from mote.cli_firmware import add_firmware_command
from mote.cli_generate import add_generate_command
from mote.cli_ops import add_ops_command
from mote.cli_platform import add_platform_arguments, apply_platform, rv32_config
from mote.cli_report import accuracy_change, print_profile, print_run, short
from mote.cli_trace import write_trace
from mote.errors import MoteError
from mote.frontend import check_regular_file, load
from mote.frontend.onnx import METHODS, parse_input_shapes, quantize_model
from mote.outputs import atomic_path, check_output_file
from mote.stream import MAX_CALLS, run_stream
from mote.targets import TARGETS, Target, find_target
from mote.targets.cortexm import CORES, CortexMConfig
from mote.targets.rv32 import Rv32, Rv32Config
from mote.targets.rv32.toolchain import CHOICES as CC_CHOICES
from mote.targets.rv32.toolchain import ISAS
from mote.terminal import console, markup, plain

INTERNAL_ERROR = 3


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0 ok, 1 outputs differ from the reference, 2 a user error (one line on stderr),
    3 a bug in mote (one line; MOTE_DEBUG=1 shows the traceback), 130 interrupted."""
    argv = joined_opt_values(list(sys.argv[1:] if argv is None else argv))
    debug = bool(os.environ.get("MOTE_DEBUG"))
    if not debug:
        _quiet_third_parties(argv)
    try:
        args = _parser().parse_args(argv)
        return args.func(args)
    except MoteError as e:
        print(f"mote: error: {plain(' '.join(str(e).split()))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mote: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout closed early (`mote run | head`): not an error of mote's
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as e:
        if debug:
            raise
        print(f"mote: internal error: {type(e).__name__}: {plain(' '.join(str(e).split()))} "
              "(please report this, with the model; MOTE_DEBUG=1 shows where)", file=sys.stderr)
        return INTERNAL_ERROR


def _quiet_third_parties(argv: list[str]) -> None:
    """numpy, onnxruntime, matplotlib and dask write warnings and log lines to stderr: mote reports
    what matters itself, in one line."""
    warnings.simplefilter("ignore")
    for name in ("matplotlib", "distributed", "tornado", "asyncio", "onnx", "onnxruntime"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if any(a.lower().endswith(".onnx") for a in argv):
        try:
            import onnxruntime

            onnxruntime.set_default_logger_severity(3)  # errors only: its C++ warnings bypass Python
        except ImportError:
            pass


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mote")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="mote", description="Compile quantized neural networks to bare-metal C.")
    parser.add_argument("--version", action="version", version=f"mote {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    add_compile_command(sub)
    add_firmware_command(sub)
    add_ops_command(sub)
    add_generate_command(sub)

    p = sub.add_parser("run", help="compile, build, run on a target and check against the reference")
    _add_run_arguments(p)
    p.add_argument("--save-outputs", type=Path, metavar="OUT.npz",
                   help="write the outputs the target computed (a regular file in an existing directory; with "
                        "--calls each output has the call as its leading axis; an integer-dialect ONNX model's "
                        "as its outputs' integer values, by output name, in the model's layout)")
    p.add_argument("--calls", type=bounded_int(1, MAX_CALLS), metavar="N",
                   help="run a stream of N calls in one build (a model with state carries it from call to call) and "
                        "compare every call with the reference and TFLite Micro: N random frames (frame k seeded by "
                        "--seed + k), or the frames of --input, whose every array has N frames along a leading axis "
                        "([N, *input shape]); .tflite models")
    p.set_defaults(func=_run)

    p = sub.add_parser("profile", help="per-layer instructions and cycles on the virtual platform")
    _add_run_arguments(p, default_target="rv32")
    p.set_defaults(func=_profile)

    p = sub.add_parser("quantize", help="post-training int8 quantization of a float ONNX model (onnxruntime)")
    p.add_argument("model", type=Path)
    p.add_argument("--calib", type=Path, required=True, help=".npz or a directory of .npy, keyed by input name")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="the quantized (QDQ) .onnx to write (a regular file in an existing directory)")
    p.add_argument("--method", default="MinMax", choices=METHODS, help="calibration method (default MinMax)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...")
    p.add_argument("--weight-bits", type=int, default=8, metavar="8|4|2",
                   help="weight width: 4 or 2 bits per channel (int4/int2 weights), reported against 8 (default 8)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_quantize)

    p = sub.add_parser("partition", help="what runs on the accelerator, what on the CPU, and why")
    p.add_argument("model", type=Path, nargs="?", help="a .tflite model (default: the bundled digits CNN)")
    p.add_argument("--accel", required=True, metavar="NAME[:KEY=VALUE,...]")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_partition)

    add_explore_command(sub)
    add_accel_command(sub)
    return parser


def _add_run_arguments(p: argparse.ArgumentParser, default_target: str = "host") -> None:
    p.add_argument("model", type=Path, nargs="?", help="a .tflite model (default: the bundled digits CNN)")
    p.add_argument("--target", default=default_target, choices=list(TARGETS))
    p.add_argument("--input", type=Path,
                   help=".npy (one input) or .npz keyed by input name; each array has the input's dtype and shape "
                        "exactly (a leading batch dimension of 1 may be left out); nothing is cast")
    p.add_argument("--seed", type=bounded_int(0, (1 << 63) - 1), default=0, help="seed of the random inputs "
                                                                                 "(default 0)")
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="keep the built project in DIR/<model name> (DIR is created if missing)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained page (README)")
    p.add_argument("--flash-budget", type=bounded_int(1, 1 << 40), metavar="BYTES",
                   help="keep the weights within BYTES: layers move from the fastest kernels to compact ones, the "
                        "fewest estimated instructions lost per byte saved first (docs/library.md)")
    onnx = p.add_argument_group("ONNX models")
    onnx.add_argument("--calib", type=Path, help="calibration data (.npz or a directory of .npy) to quantize a "
                                                 "float ONNX model first")
    onnx.add_argument("--calib-method", default="MinMax", choices=METHODS)
    onnx.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...",
                      help="fix a dynamic input shape, e.g. input=1,3,32,32 (repeatable)")
    rv32 = p.add_argument_group("rv32 and Cortex-M targets (refused with --target host; --cc, --opt, --flash, "
                                "--ram, --stack, --accel and --instruction-limit serve the Cortex-M targets too)")
    rv32.add_argument("--cc", choices=CC_CHOICES,
                      help="cross compiler: riscv64-unknown-elf-gcc when present, else zig (default auto)")
    rv32.add_argument("--opt", choices=("-O2", "-Os"), help="optimization level (default -O2; `--opt -Os` for size)")
    rv32.add_argument("--isa", choices=ISAS, help="the core's instruction set: rv32imc (default; float in software) "
                                                "or rv32imfc (the F extension: float in hardware)")
    rv32.add_argument("--flash", type=size, help="flash size, e.g. 2MiB (default)")
    rv32.add_argument("--ram", type=size, help="RAM size, e.g. 512KiB (default)")
    rv32.add_argument("--stack", type=size, help="stack size, e.g. 16KiB (default)")
    rv32.add_argument("--accel", metavar="NAME[:KEY=VALUE,...]",
                      help="offload to an accelerator: a built-in (qvanilla) or module:Class, with settings")
    rv32.add_argument("--instruction-limit", type=bounded_int(1, 1 << 62),
                      help="stop runaway firmware after this many instructions (with --calls: of each call; a "
                           "model with state runs the stream at once, stopped after N times the limit)")
    rv32.add_argument("--core", metavar="KEY=CYCLES,...",
                      help="cycle costs of the core model, e.g. load=1,mulh=1 (classes: alu, load, store, mul, "
                           "mulh, div, branch_taken, branch_not_taken, jump, fpu, fdiv)")
    rv32.add_argument("--trace", type=Path, metavar="OUT.json",
                      help="write the run's timeline as a Chrome/Perfetto trace: layers, accelerator jobs, DMA "
                           "transfers, a cluster's cores (open it in ui.perfetto.dev)")
    rv32.add_argument("--clock-mhz", type=clock_mhz, metavar="MHZ",
                      help="the clock frequency that turns cycles into time in --trace (default 100)")
    add_platform_arguments(rv32)
    rv32.add_argument("--flash-wait-states", type=bounded_int(0, 15), metavar="N",
                      help="Cortex-M targets: flash wait states, paid by each fetch after a taken branch or jump "
                           "and by each data load from flash (default 0)")


def _check_files(args: argparse.Namespace) -> None:
    """The model and data files exist and are regular files (a FIFO would block, /dev/zero never end)."""
    if getattr(args, "model", None) is not None:
        check_regular_file(args.model, "model file")
    if getattr(args, "input", None) is not None:
        check_regular_file(args.input, "input file")
    calib = getattr(args, "calib", None)
    if calib is not None and not calib.is_dir():
        check_regular_file(calib, "calibration file")


def _report(args: argparse.Namespace) -> pipeline.RunReport:
    apply_platform(args)
    settle_rv32_options(args)
    _check_files(args)
    config = rv32_config(args)
    config.validate()
    if getattr(args, "save_outputs", None) is not None:
        check_output_file(args.save_outputs, "--save-outputs")
    if args.trace is not None:
        if getattr(args, "calls", None) is not None:
            raise MoteError("--trace times one inference: leave out --calls")
        check_output_file(args.trace, "--trace")
    if getattr(args, "html", None) is not None:
        check_output_file(args.html, "--html")
    accelerator = find_accelerator(args.accel) if args.accel else None
    model = args.model or pipeline.default_model()
    if getattr(args, "calls", None) is not None:
        return run_stream(model, calls=args.calls, target=_target(args, config), input_path=args.input,
                          seed=args.seed, work_dir=args.keep, accelerator=accelerator, check_tflm=True)
    return pipeline.run(model, target=_target(args, config), input_path=args.input,
                        seed=args.seed, work_dir=args.keep, accelerator=accelerator, calib=args.calib,
                        calib_method=args.calib_method, input_shapes=parse_input_shapes(args.input_shape),
                        check_tflm=True, flash_budget=getattr(args, "flash_budget", None))


def _target(args: argparse.Namespace, config: Rv32Config) -> Target:
    """The target --target names; the virtual MCU's options configure rv32 (settle_rv32_options refuses
    them elsewhere)."""
    if args.target == Rv32.name:
        return Rv32(config, args.instruction_limit)
    if args.target in CORES:
        cortex = CortexMConfig(cpu=args.target, flash_bytes=args.flash, ram_bytes=args.ram, stack_bytes=args.stack,
                               cc=args.cc, opt=args.opt, flash_wait_states=args.flash_wait_states)
        cortex.validate()
        return TARGETS[args.target](cortex, args.instruction_limit)  # type: ignore[call-arg]
    return find_target(args.target)


def _run(args: argparse.Namespace) -> int:
    report = _report(args)
    _write_html(args, report, "run")
    if args.save_outputs:
        _save_outputs(args.save_outputs, report.onnx_outputs if report.onnx_outputs is not None else report.outputs)
    if args.trace is not None:
        write_trace(report, args.trace, args.clock_mhz)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print_run(report)
    return 0 if report.bit_exact else 1


def _write_html(args: argparse.Namespace, report: pipeline.RunReport, command: str) -> None:
    if args.html is not None:
        from mote.report_html import write_run_page
        write_run_page(args.html, report, command)


def _save_outputs(path: Path, outputs: dict[str, np.ndarray]) -> None:
    """An .npz keyed by output name, written beside `path` and renamed over it. Written member by
    member, so that no output name can clash with a parameter of np.savez."""
    with atomic_path(path, "--save-outputs") as tmp, zipfile.ZipFile(tmp, "w") as archive:
        for name, array in outputs.items():
            with archive.open(f"{name}.npy", "w") as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def _profile(args: argparse.Namespace) -> int:
    if not TARGETS[args.target].measures_layers:
        measuring = " or ".join(name for name, target in TARGETS.items() if target.measures_layers)
        raise MoteError(f"profile needs a target that measures each layer: use --target {measuring}")
    report = _report(args)
    if args.trace is not None:
        write_trace(report, args.trace, args.clock_mhz)
    _write_html(args, report, "profile")
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print_profile(report)
    return 0 if report.bit_exact else 1


def _quantize(args: argparse.Namespace) -> int:
    _check_files(args)
    with atomic_path(args.output, "-o") as tmp:
        report = quantize_model(args.model, args.calib, tmp, args.method, parse_input_shapes(args.input_shape),
                                args.weight_bits)
    report["output"] = str(args.output)
    if args.json:
        print(json.dumps(report))
        return 0
    wide = report.pop("int8_weights", None)
    print(plain(f"wrote {args.output}: " + ", ".join(f"{k} {v}" for k, v in report.items())))
    if wide is not None:
        print(plain(accuracy_change(report, wide)))
    return 0



def _partition(args: argparse.Namespace) -> int:
    from rich.table import Table

    _check_files(args)
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
    table = Table(title=f"{markup(Path(model).name)} partitioned for {markup(accelerator.label)}")
    for column in ("#", "node", "op", "runs on", "pattern / why not"):
        table.add_column(column, justify="right" if column == "#" else "left")
    for r in rows:
        table.add_row(str(r["index"]), short(r["name"]), markup(r["op"]), markup(r["runs_on"]),
                      markup(r["pattern"] or r["why_not"]))
    out = console()
    out.print(table)
    count = summary["regions"]
    out.print(f"{offloaded} nodes offloaded in {count} region{'' if count == 1 else 's'}, {summary['cpu']} on the CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
