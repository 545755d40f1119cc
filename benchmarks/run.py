"""`make bench`: measures the figures the issues name and writes benchmarks/RESULTS.md.

The machine is shared and noisy, so every speed figure is a median, quoted as a ratio against a
peer measured in the same run (TFLite Micro's interpreter, the `tflite-micro` package).
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from attention_matmul import report as attention_report  # benchmarks/*.py, beside this script
from cluster_speedup import cluster_report
from cortex_m import measure as measure_cortex_m
from cortex_m import report as cortex_m_report
from dla import dla_report
from energy_table import energy_report
from explore_resume import report as explore_resume_report
from host_timing import host_cores, host_us
from l1_dma import report as l1_dma_report
from layer_shapes import layer_shapes_report
from onnx_cnns import onnx_report
from operator_set import operator_set_report
from subbyte import subbyte_report
from subbyte_accel import report as subbyte_accel_report
from tflite_micro.python.tflite_micro import runtime
from tiny_lm import measure as measure_tiny_lm
from tiny_lm import report as tiny_lm_report

from mote.accel import find_accelerator
from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.host import host_core
from mote.targets.rv32 import Rv32Config, Rv32Firmware, build_rv32

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models" / "mlperf-tiny"
MLPERF_TINY = {"AD (ToyCar)": "ad01_int8.tflite", "KWS (DS-CNN)": "kws_ref_model.tflite",
               "IC (ResNet-8)": "pretrainedResnet_quant.tflite", "VWW (MobileNetV1)": "vww_96_int8.tflite"}
REPEATS = 5


def tflm_arena_head(path: Path) -> int:
    """TFLite Micro's planned activation bytes ('Arena allocation head'), read from its C-level stderr."""
    interp = runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    with tempfile.TemporaryFile(mode="w+") as log:
        saved = os.dup(2)
        os.dup2(log.fileno(), 2)
        try:
            interp.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        match = re.search(r"Arena allocation head (\d+) bytes", log.read())
    assert match, "TFLite Micro printed no allocation report"
    return int(match.group(1))


def tflm_us_per_invoke(path: Path, inputs: dict[str, np.ndarray], names: list[str]) -> float:
    interp = runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    for i, name in enumerate(names):
        interp.set_input(inputs[name], i)
    interp.invoke()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        interp.invoke()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def measure(label: str, file: str, work: Path) -> dict[str, float | str]:
    path = MODELS / file
    compile_s = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        compiled = compile_graph(load(path))
        compile_s.append(time.perf_counter() - start)
    graph = compiled.graph
    inputs = random_inputs(graph, 0)
    mote_us = {core.value: host_us(graph, core, work, inputs) for core in host_cores()}
    tflm_us = tflm_us_per_invoke(path, inputs, [t.name for t in graph.inputs])
    return {"model": label, "macs": compiled.macs, "mote_us": mote_us, "tflm_us": tflm_us,
            "arena": compiled.plan.size, "bound": compiled.plan.lower_bound,
            "tflm_arena": tflm_arena_head(path), "compile_s": statistics.median(compile_s)}


# Published and measured anchors for the virtual platform (see issue 4 and models/README.md):
# instructions per inference of other stacks on RV32 instruction-set simulators.
ANCHORS = {
    "AD (ToyCar)": "TVM 0.96e6, TFLite Micro 3.03e6 (MLonMCU); TFLM reference kernels here 2.48e6",
    "KWS (DS-CNN)": "TVM 1.43e7 (seed 000, a DS-CNN); TFLM reference kernels here 4.44e7",
    "IC (ResNet-8)": "TVM 5.73e7 (seed 000), TVM AOT 8.24e7 cycles at CPI 1 (MLonMCU), TFLM 1.55e8; "
                     "TFLM reference kernels here 1.256e8",
    "VWW (MobileNetV1)": "TVM 4.12e7 (seed 000); TFLM reference kernels here 1.102e8",
}


def measure_vp(label: str, file: str, work: Path, cc: str) -> dict[str, float | str]:
    """One inference on the rv32 virtual platform; simulation time is the median of REPEATS runs."""
    graph = load(MODELS / file)
    host_arena = compile_graph(graph).plan.size
    compiled = compile_graph(graph, core=Core.SCALAR)
    firmware = build_rv32(compiled, work / f"{Path(file).stem}-{cc}", Rv32Config(cc=cc))
    inputs = random_inputs(compiled.graph, 0)
    runs = [firmware.run(inputs) for _ in range(REPEATS)]
    r = runs[0]
    assert all(x.instructions == r.instructions for x in runs), "instruction counts must repeat exactly"
    seconds = statistics.median(x.sim_seconds for x in runs)
    lenient = Rv32Firmware(firmware.build, firmware.graph, replace(firmware.config, check_alignment=False))
    unchecked = [lenient.run(inputs) for _ in range(REPEATS)]
    assert all(x.instructions == r.instructions for x in unchecked), "the alignment check must not change counts"
    return {"model": label, "instructions": r.instructions, "per_mac": r.instructions / compiled.macs,
            "cycles": r.cycles, "rom": r.rom_bytes, "rom_code": r.rom_bytes - compiled.weights_bytes,
            "ram": r.ram_bytes, "arena": compiled.plan.size, "host_arena": host_arena, "stack": r.stack_bytes,
            "seconds": seconds, "unchecked_seconds": statistics.median(x.sim_seconds for x in unchecked),
            "mips": r.instructions / seconds / 1e6, "cc": r.cc, "uj": r.energy.uj if r.energy else float("nan")}


def vp_report(rows: list[dict[str, float | str]]) -> list[str]:
    cc = rows[0]["cc"]
    return [
        "## Virtual platform: one inference on the emulated rv32imc MCU", "",
        f"Compiler: {cc}, -O2. Instructions are exact (native block counting); cycles are the default "
        "in-order core model (mote/sim/cycles.py). ROM besides weights = ROM - weights_bytes. RAM is static "
        "RAM (.data + .bss): the firmware's arena, planned for the scalar kernels (whose outputs may overlap "
        "the inputs they read last), against the host build's arena; the stack is the measured high-water "
        f"mark. Simulation seconds: median of {REPEATS} runs with exact counting, with the misaligned-access "
        "check (the default) and without it: Unicorn recovers the guest PC for every load and store a hook "
        "watches by walking its translation block, and the unrolled inner loops make long blocks. µJ: energy "
        "per inference on the mcu platform (docs/energy.md: 45 nm figures, an upper bound for a modern MCU).", "",
        "| model | instructions | instr/MAC | cycles | ROM B | ROM besides weights B | RAM B | host arena B "
        "| stack B | sim s | sim MIPS | sim s, no alignment check | µJ |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *[f"| {r['model']} | {r['instructions']:.4g} | {r['per_mac']:.2f} | {r['cycles']:.4g} | {r['rom']:,} | "
          f"{r['rom_code']:,} | {r['ram']:,} | {r['host_arena']:,} | {r['stack']:,} | {r['seconds']:.3f} | "
          f"{r['mips']:.0f} | {r['unchecked_seconds']:.3f} | {r['uj']:.1f} |" for r in rows], "",
        "Goals: at most 2.5 instructions per MAC on ResNet-8 (3.1e7 instructions), at most 3.0 on VWW and KWS; "
        "the ResNet-8 simulation under 1 s; RAM at most the host arena (both plus the stack); ROM besides "
        "weights under 24 KB.", "",
        *[f"- {line}" for line in vp_goals(rows)], "",
        "Anchors (instructions per inference of other stacks):", "",
        *[f"- {label}: {text}" for label, text in ANCHORS.items()], "",
    ]


def vp_goals(rows: list[dict[str, float | str]]) -> list[str]:
    """Each goal against this run's figures: met or missed, with the value."""
    by = {r["model"]: r for r in rows}
    resnet = by["IC (ResNet-8)"]
    checks = [(f"{m} instr/MAC {by[m]['per_mac']:.2f} (goal {goal})", float(by[m]["per_mac"]) <= goal)
              for m, goal in (("IC (ResNet-8)", 2.5), ("VWW (MobileNetV1)", 3.0), ("KWS (DS-CNN)", 3.0))]
    checks.append((f"ResNet-8 simulation with exact counting {resnet['unchecked_seconds']:.3f} s (goal < 1 s)",
                   float(resnet["unchecked_seconds"]) < 1))
    checks.append((f"ResNet-8 simulation with exact counting and the default alignment check "
                   f"{resnet['seconds']:.3f} s (goal < 1 s)", float(resnet["seconds"]) < 1))
    checks += [(f"{r['model']} RAM {r['ram']:,} B vs host arena {r['host_arena']:,} B",
                int(r["ram"]) <= int(r["host_arena"])) for r in rows]
    checks += [(f"{r['model']} ROM besides weights {r['rom_code']:,} B (goal < 24,000)", int(r["rom_code"]) < 24000)
               for r in rows]
    return [f"{'met' if ok else 'MISSED'}: {text}" for text, ok in checks]


# Seed 000 (TVM + UMA + ETISS): CPU instructions without and with QVanilla.
SEED_QVANILLA = {"KWS (DS-CNN)": (1.43e7, 5.34e6), "IC (ResNet-8)": (5.73e7, 1.44e7),
                 "VWW (MobileNetV1)": (4.12e7, 1.46e7)}


def measure_qvanilla(label: str, file: str, work: Path) -> dict[str, float | str]:
    """CPU instructions without and with QVanilla (zero-cycle), and total cycles in timed mode. With
    QVanilla the count depends a little on the data (the requantization stores outputs that the
    activation clamps without computing them): the median and the largest over REPEATS inputs."""
    compiled = compile_graph(load(MODELS / file), core=Core.SCALAR)
    inputs = random_inputs(compiled.graph, 0)
    cpu = build_rv32(compiled, work / f"{Path(file).stem}-cpu", Rv32Config(cc="zig")).run(inputs)
    runs = {}
    for mode in ("0", "1"):
        accel = find_accelerator(f"qvanilla:timed={mode}")
        offloaded = compile_graph(load(MODELS / file), accel, Core.SCALAR)
        fw = build_rv32(offloaded, work / f"{Path(file).stem}-qv{mode}", Rv32Config(cc="zig"))
        runs[mode] = [fw.run(inputs) for _ in range(REPEATS)]
        assert all(np.array_equal(r.outputs[k], v) for r in runs[mode] for k, v in cpu.outputs.items())
        if mode == "0":
            counts = [fw.run(random_inputs(compiled.graph, seed)).instructions for seed in range(REPEATS)]
    timed = runs["1"][0]
    return {"model": label, "cpu": cpu.instructions, "with": statistics.median(counts), "with_max": max(counts),
            "saved": 1 - statistics.median(counts) / cpu.instructions,
            "sim_s": statistics.median(r.sim_seconds for r in runs["0"]), "cpu_cycles": cpu.cycles,
            "timed_cpu_cycles": timed.cycles, "timed_accel_cycles": timed.accel_cycles,
            "timed_total": timed.total_cycles, "offloaded": sum(x.runs_on != "cpu" for x in offloaded.layers)}


def qvanilla_report(rows: list[dict[str, float | str]]) -> list[str]:
    lines = [
        "## QVanilla (conv2d + bias accelerator, seed 000) on the virtual platform", "",
        "CPU instructions per inference without and with QVanilla (zero-cycle mode), against the seed's "
        "TVM + UMA + ETISS figures; simulation seconds with QVanilla (median of "
        f"{REPEATS}); cycles in timed mode (2 cycles per MAC on the accelerator, CPU waits). Compiler zig, -O2. "
        "Offloaded: convolutions, and depthwise convolutions as one accelerator start per channel. With "
        "QVanilla the CPU's count depends slightly on the data (outputs the activation clamps are stored "
        f"without requantizing): the median (and largest) over {REPEATS} random inputs. "
        "Goal: CPU instructions with QVanilla at most one fifth of the seed's.", "",
        "| model | offloaded layers | mote CPU only | mote + QVanilla (largest) | saved | seed CPU only | "
        "seed + QVanilla | seed saved | goal (seed/5) | sim s | cycles CPU only | timed: CPU + accel = total cycles |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        seed_cpu, seed_with = SEED_QVANILLA[str(r["model"])]
        lines.append(
            f"| {r['model']} | {r['offloaded']} | {r['cpu']:.3g} | {r['with']:.4g} ({r['with_max']:.4g}) | "
            f"{r['saved']:.0%} | "
            f"{seed_cpu:.3g} | {seed_with:.3g} | {1 - seed_with / seed_cpu:.0%} | {seed_with / 5:.3g} | "
            f"{r['sim_s']:.3f} | {r['cpu_cycles']:.3g} | {r['timed_cpu_cycles']:.3g} + "
            f"{r['timed_accel_cycles']:.3g} = {r['timed_total']:.3g} |")
    return [*lines, ""]


def host_report(rows: list[dict]) -> list[str]:
    cores = list(rows[0]["mote_us"])
    return [
        "## Host: mote's generated C (-O2, system cc) against TFLite Micro's `invoke()`", "",
        "Peer: the `tflite-micro` package's interpreter (reference kernels), same random int8 input. "
        "Kernels: `vector`, the portable ones the compiler vectorizes; `vnni`, where the machine has "
        "AVX-512 VNNI (what `mote run --target host` picks there). Goal: mote at least 3x faster on every model.",
        "",
        "| model | MACs | " + " | ".join(f"mote µs ({c})" for c in cores) + " | TFLite Micro µs/invoke | "
        + " | ".join(f"speed-up ({c})" for c in cores) + " |",
        "|---|---:|" + "---:|" * (2 * len(cores) + 1),
        *[f"| {r['model']} | {r['macs']:,} | " + " | ".join(f"{r['mote_us'][c]:.1f}" for c in cores)
          + f" | {r['tflm_us']:.1f} | " + " | ".join(f"{r['tflm_us'] / r['mote_us'][c]:.1f}x" for c in cores) + " |"
          for r in rows], "",
        "## Arena: mote's static arena against TFLite Micro's planner and the lower bound", "",
        "Lower bound: the most tensor bytes live at once (reshape in place). TFLite Micro: the "
        "'Arena allocation head' of its allocation report (activations only, no persistent data).", "",
        "| model | mote arena B | lower bound B | TFLite Micro B | mote / bound |",
        "|---|---:|---:|---:|---:|",
        *[f"| {r['model']} | {r['arena']:,} | {r['bound']:,} | {r['tflm_arena']:,} | "
          f"{r['arena'] / r['bound']:.3f} |" for r in rows], "",
        "## Compile time (load + plan + generate C, in process)", "",
        "Goal: under 2 s per model.", "",
        "| model | compile s |", "|---|---:|",
        *[f"| {r['model']} | {r['compile_s']:.3f} |" for r in rows], "",
    ]


def kept_sections() -> list[str]:
    """The sections other commands wrote between their markers, carried over unchanged: `make fuzz`'s
    (scripts/fuzz.py), the legacy uint8 layers' (benchmarks/uint8_layers.py --write), then QVanilla's RTL
    (benchmarks/rtl_qvanilla.py --write)."""
    path = REPO / "benchmarks" / "RESULTS.md"
    old = path.read_text() if path.exists() else ""
    kept = []
    for name in ("fuzz", "uint8", "rtl"):
        match = re.search(rf"<!-- {name}:begin -->.*?<!-- {name}:end -->", old, re.S)
        kept += [match.group(0), ""] if match else []  # onnx_report ends in a blank line
    return kept


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-bench-") as tmp:
        host, vp, qvanilla = [], [], []
        for label, file in MLPERF_TINY.items():
            print(f"measuring {label} ...", file=sys.stderr)
            host.append(measure(label, file, Path(tmp)))
            vp.append(measure_vp(label, file, Path(tmp), "zig"))
            if label in SEED_QVANILLA:
                qvanilla.append(measure_qvanilla(label, file, Path(tmp)))
        print("measuring the float32 models ...", file=sys.stderr)
        operator_set = operator_set_report(Path(tmp))
        print("measuring real-model layer shapes on rv32 ...", file=sys.stderr)
        layers = layer_shapes_report(Path(tmp))
        print("measuring attention-shaped matrix products on rv32 ...", file=sys.stderr)
        attention = attention_report(Path(tmp))
        print("measuring the tiny language model ...", file=sys.stderr)
        tiny_lm = [*tiny_lm_report(measure_tiny_lm(Path(tmp))), ""]
        cortex_m = [*cortex_m_report(measure_cortex_m(Path(tmp))), ""]
        print("measuring the 8-core cluster and the L1 with its DMA ...", file=sys.stderr)
        cluster = [*cluster_report(Path(tmp)), *l1_dma_report(Path(tmp))]
        print("measuring energy per inference on mcu, cluster8 and cluster8+dla ...", file=sys.stderr)
        energy = energy_report(Path(tmp))
        print("measuring a 10,000-point exploration and its resumption from the store ...", file=sys.stderr)
        resume = explore_resume_report(Path(tmp))
        print("measuring sub-byte weights (8, 4 and 2 bits) on rv32 ...", file=sys.stderr)
        narrow = subbyte_report(Path(tmp))
        print("measuring the accelerators' sub-byte weight modes on ResNet-8 ...", file=sys.stderr)
        narrow_accel = subbyte_accel_report(Path(tmp))
    text = "\n".join([
        "# Benchmark results", "",
        f"Written by `make bench` (python benchmarks/run.py) on {platform.machine()} with Python "
        f"{platform.python_version()}, {os.cpu_count()} cores, "
        f"{'with' if host_core() is Core.VNNI else 'without'} AVX-512 VNNI (the vnni kernels' columns need it). "
        f"Medians of {REPEATS} runs; peers measured in the same run.", "",
        *host_report(host), *vp_report(vp), *qvanilla_report(qvanilla), *dla_report(MODELS), "",
        *onnx_report(), *operator_set, *layers, *kept_sections(), *attention, *tiny_lm, *cortex_m, *cluster, *energy,
        *resume, *narrow, *narrow_accel])
    (REPO / "benchmarks" / "RESULTS.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
