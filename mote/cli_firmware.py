"""`mote firmware`: several models in one rv32 firmware, each in its own namespace (mote.targets.rv32.several):
every model's library in DIR/NAME/, one platform (reset code, linker script, support library) and a main that runs
the models in turn, linked into DIR/firmware.elf. With --run, the firmware runs once on the virtual platform and
each model's outputs are compared with the reference interpreter's (exit status 1 when they differ)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from mote import pipeline
from mote.codegen.compile import CompiledModel
from mote.codegen.naming import check_name
from mote.errors import MoteError
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.outputs import check_project_dir, write_project_dir
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config
from mote.targets.rv32.several import SeveralRun, build_several, run_several
from mote.terminal import plain


def add_firmware_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("firmware", help="several models in one rv32 firmware, each in its own namespace")
    p.add_argument("models", type=Path, nargs="+", metavar="model", help="the models, in the order they run")
    p.add_argument("--name", required=True, metavar="PREFIX,...",
                   help="one namespace per model, in order, comma-separated (e.g. kws,ad): PREFIX_run, PREFIX.h, "
                        "PREFIX_ARENA_BYTES, each library in DIR/PREFIX/")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="project directory to write; created with its parents if missing; an existing one is "
                        "replaced only if it is empty or mote wrote it (it holds a .mote-project file)")
    p.add_argument("--cc", choices=("auto", "zig", "gcc"), default="auto",
                   help="cross compiler: riscv64-unknown-elf-gcc when present, else zig (default auto)")
    p.add_argument("--run", action="store_true",
                   help="run the firmware once on the virtual platform, every model on random inputs (--seed), and "
                        "compare each model's outputs with the reference interpreter")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_firmware)


def names_of(spec: str, count: int) -> list[str]:
    """The --name list, one valid and distinct C identifier per model."""
    names = [n.strip() for n in spec.split(",")]
    if len(names) != count:
        raise MoteError(f"--name {spec}: {len(names)} names for {count} models; give one per model, "
                        "comma-separated, in the models' order")
    for n in names:
        check_name(n)
    if len({n.lower() for n in names}) != len(names):  # kws and KWS would share the macros KWS_...
        raise MoteError(f"--name {spec}: models in one firmware need different names, apart from case too")
    return names


def run_firmware(args: argparse.Namespace) -> int:
    names = names_of(args.name, len(args.models))
    check_project_dir(args.output)
    config = Rv32Config(cc=args.cc)
    config.validate()
    models = [pipeline.compile_model(path, core=Core.SCALAR, name=name) for path, name in zip(args.models, names)]
    inputs = [random_inputs(m.graph, args.seed) for m in models]
    outcome: list[SeveralRun] = []

    def fill(project: Path) -> None:
        firmware = build_several(models, project, config)
        if args.run:
            outcome.append(run_several(firmware, inputs))

    write_project_dir(args.output, fill)
    report = _report(args, models, inputs, outcome[0] if outcome else None)
    if args.json:
        print(json.dumps(report))
    else:
        for line in _lines(report):
            print(plain(line))
    return 1 if any(m.get("mismatches") for m in report["models"]) else 0


def _report(args: argparse.Namespace, models: list[CompiledModel], inputs: list[dict[str, np.ndarray]],
            run: SeveralRun | None) -> dict:
    entries = []
    for k, (path, m) in enumerate(zip(args.models, models)):
        entry: dict = {"model": str(path), "name": m.names.prefix, "layers": len(m.layers),
                       "arena_bytes": m.plan.size, "weights_bytes": m.weights_bytes, "macs": m.macs}
        if run is not None:
            expected = interpret(m.graph, inputs[k])
            entry["mismatches"] = sum(int(np.count_nonzero(run.outputs[k][name] != value))
                                      for name, value in expected.items())
            entry["instructions"] = run.instructions[k]
        entries.append(entry)
    report: dict = {"output": str(args.output), "firmware": str(args.output / "firmware.elf"), "models": entries}
    if run is not None:
        report.update(rom_bytes=run.rom_bytes, ram_bytes=run.ram_bytes)
    return report


def _lines(report: dict) -> list[str]:
    lines = [f"wrote {report['output']}/: {len(report['models'])} models in {report['firmware']}"]
    for m in report["models"]:
        line = (f"  {m['name']}: {m['model']}, {m['layers']} layers, arena {m['arena_bytes']} B, weights "
                f"{m['weights_bytes']} B, {m['macs']:,} MACs")
        if "instructions" in m:
            verdict = "bit-exact" if m["mismatches"] == 0 else f"{m['mismatches']} values differ from the reference"
            line += f"; ran in {m['instructions']:,} instructions, {verdict}"
        lines.append(line)
    if "rom_bytes" in report:
        lines.append(f"  firmware: ROM {report['rom_bytes']:,} B, RAM {report['ram_bytes']:,} B")
    return lines
