"""QVanilla's RTL in the loop on the four MLPerf Tiny models: bit-exactness against its Python functional
model, the RTL's cycles against the cost models, and the simulation time.

    python benchmarks/rtl_qvanilla.py [--models DIR] [--json out.json] [--write]

`--write` puts the table into benchmarks/RESULTS.md between its `rtl` markers (`make bench` keeps it).

For each model: one run on the CPU alone and one with `qvanilla-rtl` (the Verilated design), as
`mote accel bench mote/accel/rtl/qvanilla.sv --accel qvanilla-rtl` runs them (mote.explore.rtl_bench),
and one with `qvanilla:timed=1` (the Python functional model, 2 cycles per MAC); `--accel` and
`--python` name another RTL accelerator and its functional model. The outputs of the three must be
equal; the table shows the RTL's accelerator cycles, qvanilla-rtl's cost model (per output element: 2
per tap + 2) and QVanilla's (2 per MAC), the worst per-layer gap between the RTL and qvanilla-rtl's
model, and wall-clock seconds (the whole `run`, the emulated firmware, and the time spent clocking the
RTL), with the process's CPU seconds beside the wall-clock ones (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mote.accel import find_accelerator
from mote.explore.rtl_bench import HEADERS, MLPERF_TINY, bench_model, table_rows
from mote.pipeline import run
from mote.targets.rv32 import Rv32, Rv32Config

ROOT = Path(__file__).resolve().parents[1]
MODELS = list(MLPERF_TINY.values())


def measure(path: Path, accel: str = "qvanilla-rtl", python_accel: str = "qvanilla:timed=1") -> dict[str, Any]:
    """`accel` (an RTL accelerator) against the CPU alone (mote.explore.rtl_bench, what `mote accel bench`
    runs) and against `python_accel` (its functional model, timed)."""
    target = Rv32(Rv32Config(cc="zig"))
    row, _, rtl = bench_model(path, find_accelerator(accel), target)
    python = run(path, target=target, accelerator=find_accelerator(python_accel))
    same = all(np.array_equal(rtl.outputs[k], v) for k, v in python.outputs.items())
    sim = rtl.figures.sim
    stats = sim.accel_rtl or {"mac_model_cycles": 0, "layers": {}}
    per_mac = {p.index: p.accel_cycles for p in python.figures.sim.layers}  # the functional model's timed cycles
    mac_gaps = [abs(v["rtl_cycles"] - per_mac.get(int(i), 0)) / v["rtl_cycles"]
                for i, v in stats["layers"].items() if v["rtl_cycles"]]
    worst = row["worst_layer_error"]
    return {"model": path.name, "bit_exact_with_python_model": same, "accel_bench": row,
            "bit_exact_with_reference": row["bit_exact_with_reference"],
            "bit_exact_with_cpu_only": row["bit_exact_with_cpu_only"],
            "offloaded_layers": row["offloaded_layers"], "jobs": row["jobs"],
            "rtl_cycles": row["rtl_cycles"], "cost_model_cycles": row["cost_model_cycles"],
            "mac_model_cycles": stats["mac_model_cycles"],
            "python_model_accel_cycles": python.figures.sim.accel_cycles,
            "cpu_only_cycles": row["cpu_only_cycles"], "cpu_cycles_with_accel": row["cpu_cycles"],
            "total_cycles": row["total_cycles"], "speedup": round(row["speedup"], 2),
            "rom_change_bytes": row["rom_change_bytes"], "ram_change_bytes": row["ram_change_bytes"],
            "worst_layer_gap": 0.0 if worst is None else abs(worst),
            "worst_layer_gap_mac_model": max(mac_gaps, default=0.0), "run_seconds": row["rtl_run_seconds"],
            "run_cpu_seconds": row["rtl_run_cpu_seconds"], "sim_seconds": round(sim.sim_seconds, 2),
            "rtl_seconds": row["rtl_seconds"], "rtl_cpu_seconds": row["rtl_cpu_seconds"],
            "rtl_mcycles_per_cpu_second": round(row["rtl_cycles"] / row["rtl_cpu_seconds"] / 1e6, 2)
            if row["rtl_cpu_seconds"] else None}


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| model | offloaded layers | jobs | bit-exact (RTL vs Python model) | RTL cycles | qvanilla-rtl model | "
             "worst layer gap | QVanilla 2/MAC model | RTL / 2-per-MAC | worst layer gap (2/MAC) | run s (CPU s) | "
             "emulation s | RTL s (CPU s) | RTL Mcycles per CPU s |", "|" + "---|" * 14]
    for r in rows:
        mac = r["mac_model_cycles"] or 0
        ratio = f"{r['rtl_cycles'] / mac:.3f}" if mac else "-"
        lines.append(f"| {r['model']} | {r['offloaded_layers']} | {r['jobs']} | {r['bit_exact_with_python_model']} | "
                     f"{r['rtl_cycles']:,} | {r['cost_model_cycles']:,} | {r['worst_layer_gap']:.2%} | "
                     f"{mac:,} | {ratio} | {r['worst_layer_gap_mac_model']:.2%} | "
                     f"{r['run_seconds']} ({r['run_cpu_seconds']}) | "
                     f"{r['sim_seconds']} | {r['rtl_seconds']} ({r['rtl_cpu_seconds']}) | "
                     f"{r['rtl_mcycles_per_cpu_second']} |")
    return lines


def speedup_table(rows: list[dict[str, Any]]) -> list[str]:
    """`mote accel bench`'s table, in Markdown."""
    cells = table_rows([r["accel_bench"] for r in rows])
    return ["| " + " | ".join(HEADERS) + " |", "|---|" + "---:|" * (len(HEADERS) - 1),
            *("| " + " | ".join(c) + " |" for c in cells)]


def section(rows: list[dict[str, Any]]) -> str:
    resnet = next((r for r in rows if r["model"].startswith("pretrainedResnet")), None)
    goal = "" if resnet is None else (
        f" ResNet-8's RTL-in-the-loop run took {resnet['run_cpu_seconds']} CPU seconds in the process "
        f"({resnet['run_seconds']} s wall-clock, with the machine's other load; goal: under 10 s).")
    return "\n".join([
        "<!-- rtl:begin -->", "## QVanilla in RTL on the virtual platform (issue 20)", "",
        "Written by `python benchmarks/rtl_qvanilla.py --write` on a machine with "
        f"{os.cpu_count()} cores. `qvanilla-rtl` runs QVanilla's SystemVerilog (mote/accel/rtl/qvanilla.sv, "
        "Verilated) as the accelerator device; its outputs are compared with the run of QVanilla's Python "
        "functional model (`qvanilla:timed=1`) on the same inputs. Cycles: the RTL's; qvanilla-rtl's cost model "
        "(2 per tap + 2 per output element + 1 per start, the design's schedule); QVanilla's 2-per-MAC model. "
        "Gaps are per offloaded layer, relative to the RTL. Seconds: wall-clock, with the CPU seconds of the "
        "process in parentheses (the cross compiler runs in child processes, not counted)." + goal, "",
        *table(rows), "",
        "Speed-up on the virtual MCU (the CPU waits while the accelerator runs), as `mote accel bench "
        "mote/accel/rtl/qvanilla.sv --accel qvanilla-rtl` prints it:", "",
        *speedup_table(rows), "<!-- rtl:end -->"])


def write_results(text: str) -> None:
    path = ROOT / "benchmarks" / "RESULTS.md"
    old = path.read_text()
    pattern = re.compile(r"<!-- rtl:begin -->.*?<!-- rtl:end -->", re.S)
    new = pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(new)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=ROOT / "models" / "mlperf-tiny")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--write", action="store_true", help="put the table into benchmarks/RESULTS.md")
    parser.add_argument("--accel", default="qvanilla-rtl", help="the RTL accelerator (default qvanilla-rtl)")
    parser.add_argument("--python", default="qvanilla:timed=1",
                        help="the same accelerator by its Python functional model, timed (default qvanilla:timed=1)")
    parser.add_argument("names", nargs="*", default=MODELS)
    args = parser.parse_args(argv)
    rows = []
    for name in args.names:
        rows.append(measure(args.models / name, args.accel, args.python))
        print(f"{name}: done", file=sys.stderr)
    print("\n".join([*table(rows), "", *speedup_table(rows)]))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.write:
        write_results(section(rows))
    return 0 if all(r["bit_exact_with_python_model"] and r["bit_exact_with_reference"] and r["bit_exact_with_cpu_only"]
                    for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
