"""The MLPerf Tiny models on the Cortex-M targets (issue 19): instructions per inference on each core of
the virtual platform against the issue's anchor (TFLite Micro + CMSIS-NN on Unicorn's Cortex-M4), the
cycle model's figures beside published MLPerf Tiny latencies, flash and RAM.

    python benchmarks/cortex_m.py            # print the section
    python benchmarks/cortex_m.py --write    # and put it into benchmarks/RESULTS.md between its markers
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.cortexm import CORES, CortexMConfig, build_cortexm

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models" / "mlperf-tiny"
FILES = {"AD": "ad01_int8.tflite", "KWS": "kws_ref_model.tflite", "ResNet-8": "pretrainedResnet_quant.tflite",
         "VWW": "vww_96_int8.tflite"}
# Issue 19's anchor: TFLM (90b983c2) + CMSIS-NN (4ab83cc3), arm-none-eabi-gcc 12.2 -O2, one Invoke() on
# Unicorn's Cortex-M4; its goal (1.3x fewer instructions); TFLM's arena.
ANCHOR = {"AD": 583_120, "KWS": 7_698_093, "ResNet-8": 29_862_629, "VWW": 24_102_341}
GOAL = {"AD": 450_000, "KWS": 5_900_000, "ResNet-8": 23_000_000, "VWW": 18_500_000}
TFLM_ARENA = {"AD": 2_580, "KWS": 22_820, "ResNet-8": 54_996, "VWW": 100_708}
# MLPerf Tiny v1.0, closed division, STMicroelectronics with X-CUBE-AI 7.3.0: median throughput
# (inferences per second) of NUCLEO-L4R5ZI (Cortex-M4 at 120 MHz) and NUCLEO-H7A3ZI-Q (Cortex-M7 at 280 MHz).
PUBLISHED = {"cortex-m4": ("NUCLEO-L4R5ZI, Cortex-M4 at 120 MHz", 120e6,
                           {"AD": 131.950, "KWS": 13.323, "ResNet-8": 4.407, "VWW": 4.339}),
             "cortex-m7": ("NUCLEO-H7A3ZI-Q, Cortex-M7 at 280 MHz", 280e6,
                           {"AD": 547.705, "KWS": 59.667, "ResNet-8": 18.401, "VWW": 19.722})}
MARKERS = ("<!-- cortexm:begin -->", "<!-- cortexm:end -->")


@dataclass
class Row:
    model: str
    cpu: str
    macs: int
    instructions: int
    cycles: int
    exact: bool
    rom: int      # flash: code, constants, .data's initial values
    consts: int   # the model's constant arrays: weights, biases, output stages
    arena: int
    stack: int
    uj: float | None = None  # µJ per inference (mote.sim.energy on the core's platform)


GCC = "arm-none-eabi-gcc"
PORTABLE = "cortex-m0plus/vector"  # Cortex-M0+ with the portable vector kernels: what the Armv6-M ones replace


def measure(work: Path) -> list[Row]:
    """Every model on every core with zig's clang; on Cortex-M4 with arm-none-eabi-gcc too where it is
    installed (cpu "cortex-m4/gcc")."""
    rows = []
    for label, file in FILES.items():
        graph = load(MODELS / file)
        inputs = random_inputs(graph, 0)
        expected = interpret(graph, inputs)
        for cpu, core in CORES.items():
            print(f"measuring {label} on {cpu} ...", file=sys.stderr)
            compiled = compile_graph(graph, core=core.kernels)
            result = build_cortexm(compiled, work / f"{label}-{cpu}", CortexMConfig(cpu=cpu, cc="zig")).run(inputs)
            exact = all((result.outputs[k] == v).all() for k, v in expected.items())
            rows.append(Row(label, cpu, compiled.macs, result.instructions, result.cycles, exact, result.rom_bytes,
                            compiled.weights_bytes, compiled.plan.size, result.stack_bytes, result.energy_uj))
        print(f"measuring {label} on cortex-m0plus with the vector kernels ...", file=sys.stderr)
        compiled = compile_graph(graph, core=Core.VECTOR)
        config = CortexMConfig(cpu="cortex-m0plus", cc="zig")
        result = build_cortexm(compiled, work / f"{label}-m0plus-vector", config, Core.VECTOR).run(inputs)
        exact = all((result.outputs[k] == v).all() for k, v in expected.items())
        rows.append(Row(label, PORTABLE, compiled.macs, result.instructions, result.cycles, exact, result.rom_bytes,
                        compiled.weights_bytes, compiled.plan.size, result.stack_bytes))
        if shutil.which(GCC):
            print(f"measuring {label} on cortex-m4 with {GCC} ...", file=sys.stderr)
            compiled = compile_graph(graph, core=CORES["cortex-m4"].kernels)
            config = CortexMConfig(cpu="cortex-m4", cc="gcc")
            result = build_cortexm(compiled, work / f"{label}-gcc", config).run(inputs)
            exact = all((result.outputs[k] == v).all() for k, v in expected.items())
            rows.append(Row(label, "cortex-m4/gcc", compiled.macs, result.instructions, result.cycles, exact,
                            result.rom_bytes, compiled.weights_bytes, compiled.plan.size, result.stack_bytes))
    return rows


def report(rows: list[Row]) -> list[str]:
    by = {(r.model, r.cpu): r for r in rows}
    out = [MARKERS[0], "## Cortex-M: the MLPerf Tiny models on each core of the virtual platform (issue 19)", "",
           "`python benchmarks/cortex_m.py --write` (zig cc 0.17.1 -O2; the DSP kernels on Cortex-M4, M7 and M33, "
           "the Armv6-M kernels on Cortex-M0+). Instructions of one model_run, exact; outputs compared with "
           "mote's reference interpreter (itself bit-exact with TFLite Micro). The anchor: TFLM + CMSIS-NN "
           "(gcc 12.2 -O2) on Unicorn's Cortex-M4, from issue 19.", "",
           "| model | MACs | Cortex-M4 | per MAC | anchor | fewer | goal | M0+ | M7 | M33 | bit-exact |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for model in FILES:
        m4 = by[model, "cortex-m4"]
        others = " | ".join(f"{by[model, c].instructions:,}" for c in ("cortex-m0plus", "cortex-m7", "cortex-m33"))
        exact = all(by[model, c].exact for c in CORES)
        out.append(f"| {model} | {m4.macs:,} | {m4.instructions:,} | {m4.instructions / m4.macs:.2f} | "
                   f"{ANCHOR[model]:,} | {ANCHOR[model] / m4.instructions:.2f}x | "
                   f"{'met' if m4.instructions <= GOAL[model] else 'missed'} | {others} | {'yes' if exact else 'NO'} |")
    if any(r.cpu == "cortex-m4/gcc" for r in rows):
        out += ["", f"Cortex-M4 built with {GCC} -O2 (the anchor's compiler; the table above is zig's clang):", "",
                "| model | instructions | per MAC | anchor | fewer | goal | bit-exact |",
                "|---|---:|---:|---:|---:|---:|---|"]
        for model in FILES:
            g = by[model, "cortex-m4/gcc"]
            met = "met" if g.instructions <= GOAL[model] else "missed"
            out.append(f"| {model} | {g.instructions:,} | {g.instructions / g.macs:.2f} | {ANCHOR[model]:,} | "
                       f"{ANCHOR[model] / g.instructions:.2f}x | {met} | {'yes' if g.exact else 'NO'} |")
    out += ["", "Cortex-M0+ (Armv6-M: no DSP extension, MULS 32x32->32): the Armv6-M kernels (two products per "
            "MULS on pair words, a one-multiply output stage in 16-bit halves) against the portable vector kernels "
            "they replace, same compiler and core; cycles from the cycle model (fast multiplier, zero wait "
            "states).", "",
            "| model | instructions | per MAC | cycles | vector kernels | per MAC | fewer | bit-exact |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for model in FILES:
        m0, vec = by[model, "cortex-m0plus"], by[model, PORTABLE]
        out.append(f"| {model} | {m0.instructions:,} | {m0.instructions / m0.macs:.2f} | {m0.cycles:,} | "
                   f"{vec.instructions:,} | {vec.instructions / vec.macs:.2f} | "
                   f"{vec.instructions / m0.instructions:.2f}x | {'yes' if m0.exact and vec.exact else 'NO'} |")
    out += ["", "Flash and RAM on Cortex-M4: ROM besides the model's constant arrays (weights, biases, output "
            "stages) against TFLM + CMSIS-NN's 101-107 KB of code; the arena against TFLM's.", "",
            "| model | ROM | constants | ROM besides them | arena | TFLM arena | stack |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for model in FILES:
        r = by[model, "cortex-m4"]
        out.append(f"| {model} | {r.rom:,} | {r.consts:,} | {r.rom - r.consts:,} | {r.arena:,} | "
                   f"{TFLM_ARENA[model]:,} | {r.stack:,} |")
    out += ["", "The cycle model (mote/targets/cortexm/cores.py; zero wait states) beside published MLPerf Tiny v1.0 "
            "latencies (closed division, STMicroelectronics, X-CUBE-AI 7.3.0; median throughput inverted). "
            "No Cortex-M0+ system was submitted; its cycles are listed for a 48 MHz part.", "",
            "| model | core | cycles | ms at the board's clock | published ms (board) |", "|---|---|---:|---:|---|"]
    for model in FILES:
        for cpu in ("cortex-m0plus", "cortex-m4", "cortex-m7"):
            cycles = by[model, cpu].cycles
            board, hz, published = PUBLISHED.get(cpu, ("no submission", 48e6, {}))
            ms = f"{1e3 / published[model]:.2f} ({board})" if published else "-"
            out.append(f"| {model} | {cpu} | {cycles:,} | {cycles / hz * 1e3:.2f} | {ms} |")
    out += ["", "The Cortex-M7 model is single-issue (an upper bound: the core dual-issues), so its cycles "
            "overestimate the core's.", "",
            "Energy per inference (µJ) on each core's platform: exact instruction and per-memory access counts "
            "priced with 45 nm estimates, the same figures for every core (docs/energy.md, \"Cortex-M\").", "",
            "| model | Cortex-M0+ | Cortex-M4 | Cortex-M7 | Cortex-M33 |", "|---|---:|---:|---:|---:|"]
    for model in FILES:
        cells = " | ".join("-" if by[model, c].uj is None else f"{by[model, c].uj:,.1f}" for c in CORES)
        out.append(f"| {model} | {cells} |")
    out.append(MARKERS[1])
    return out


def write(section: list[str]) -> None:
    path = REPO / "benchmarks" / "RESULTS.md"
    text = path.read_text()
    block = "\n".join(section)
    pattern = re.compile(re.escape(MARKERS[0]) + ".*?" + re.escape(MARKERS[1]), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-cortexm-") as tmp:
        section = report(measure(Path(tmp)))
    print("\n".join(section))
    if "--write" in sys.argv[1:]:
        write(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
