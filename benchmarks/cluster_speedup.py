"""The MLPerf Tiny models on the cluster8 platform's cluster, 8 cores against 1 (mote.sim.cluster): cycles on
the critical path for the whole model and for its convolutions, outputs compared across core counts and with
the reference interpreter, and the simulator's time per instruction. Run alone:
`python benchmarks/cluster_speedup.py`; `cluster_report(work)` gives the section of benchmarks/RESULTS.md."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.sim.platforms import builtin
from mote.sim.results import SimResult
from mote.targets.rv32 import Rv32Config, Rv32Firmware, build_rv32

MODELS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny"
CLUSTER_MODELS = {"AD (ToyCar)": "ad01_int8.tflite", "KWS (DS-CNN)": "kws_ref_model.tflite",
                  "IC (ResNet-8)": "pretrainedResnet_quant.tflite", "VWW (MobileNetV1)": "vww_96_int8.tflite"}
# the issue's goals: speed-up of 8 cores over 1 (whole model; ResNet-8's convolutions apart)
GOALS = {"KWS (DS-CNN)": 5.0, "IC (ResNet-8)": 6.0, "VWW (MobileNetV1)": 5.0}
CONV_GOAL = 7.0  # ResNet-8's convolutions
SIM_GOAL = 2.0   # simulation time per instruction, 8 cores over 1
DMA_GOAL = 0.10  # exposed DMA, a share of the 8 cores' cycles
REPEATS = 5
CONVS = ("conv2d", "depthwise_conv2d")


def _build(file: str, cores: int, work: Path) -> tuple[Rv32Firmware, dict[str, np.ndarray], dict[int, str]]:
    """The firmware for `cores` cores, the inputs, the layers' ops."""
    graph = load(MODELS / file)
    compiled = compile_graph(graph, core=Core.SCALAR)
    config = Rv32Config(cc="zig", platform=builtin("cluster8").with_cores(cores), cores=cores)
    firmware = build_rv32(compiled, work / f"{Path(file).stem}-{cores}", config)
    return firmware, random_inputs(compiled.graph, 0), {layer.index: layer.op for layer in compiled.layers}


def measure(label: str, file: str, work: Path) -> dict[str, float | str]:
    """REPEATS runs on 1 core and on 8, alternating (so that the machine's other load falls on both alike), each
    timed in process CPU time (setting up the cores, emulating them, the figures); counts must repeat exactly and
    the outputs equal the reference interpreter's."""
    fw1, inputs, ops = _build(file, 1, work)
    fw8, _, _ = _build(file, 8, work)
    runs: dict[int, list[SimResult]] = {1: [], 8: []}
    seconds: dict[int, list[float]] = {1: [], 8: []}
    for _ in range(REPEATS):
        for cores, firmware in ((1, fw1), (8, fw8)):
            start = time.process_time()
            runs[cores].append(firmware.run(inputs))
            seconds[cores].append(time.process_time() - start)
    expected = interpret(load(MODELS / file), inputs)
    for cores, results in runs.items():
        assert all(r.instructions == results[0].instructions and r.cycles == results[0].cycles for r in results)
        for name, value in expected.items():
            assert np.array_equal(results[0].outputs[name], value), f"{file} on {cores} cores: output {name} differs"
    r1, r8 = runs[1][0], runs[8][0]
    wall1, wall8 = seconds[1], seconds[8]

    def conv_cycles(r: SimResult) -> int:
        return sum(layer.cycles for layer in r.layers if ops.get(layer.index) in CONVS)

    per_insn1 = statistics.median(wall1) / r1.instructions
    per_insn8 = statistics.median(wall8) / r8.instructions
    busy = [c.cycles for c in r8.cores]
    return {"model": label, "cycles1": r1.cycles, "cycles8": r8.cycles, "speedup": r1.cycles / r8.cycles,
            "conv_speedup": conv_cycles(r1) / conv_cycles(r8) if conv_cycles(r8) else float("nan"),
            "insns1": r1.instructions,
            "insns8": r8.instructions, "utilization": sum(busy) / (len(busy) * r8.cycles),
            "sim1": per_insn1 * r1.instructions, "sim8": per_insn8 * r8.instructions,
            "sim_ratio": per_insn8 / per_insn1,
            "uj1": r1.energy.uj if r1.energy else float("nan"), "uj8": r8.energy.uj if r8.energy else float("nan"),
            "dma1": _exposed(r1), "dma8": _exposed(r8)}


def _exposed(r: SimResult) -> float:
    """The share of the run's cycles stalled on the DMA (NaN: no DMA)."""
    return r.dma.exposed_cycles / r.cycles if r.dma is not None else float("nan")


def _times(x: float | str) -> str:
    return "-" if x != x else f"{float(x):.2f}x"  # NaN: no convolution


def cluster_report(work: Path) -> list[str]:
    rows = [measure(label, file, work) for label, file in CLUSTER_MODELS.items()]
    lines = [
        "## 8 cores against 1 on the cluster8 platform", "",
        "Each model built by `benchmarks/cluster_speedup.py` for the cluster8 platform's cluster with 1 and with 8 "
        "cores (zig -O2, scalar kernels; layers split across the cores by mote.codegen.parallel, a fork and a join "
        "per layer; conv, depthwise, pooling, fully connected and add layers on L1 tiles of its 64 KiB filled by "
        "the DMA, each tile forked across the cores, the DMA programmed by core 0: mote.codegen.l1_tiles; exposed "
        "DMA = core 0's stalls on it, a share of the critical path), one inference on random inputs, "
        f"{REPEATS} runs each, 1 core and 8 alternating (counts repeat exactly). Outputs equal the "
        "reference interpreter's on both. Cycles are the critical path: each layer's slowest core plus the barriers. "
        "Simulation time is the process CPU time of a run (setting up the cores, emulating them, computing the "
        "figures: the cores share one emulator instance, mote.sim.cluster_engine), median of the runs, and per "
        "instruction (all cores' instructions); CPU time rather than wall-clock time, since the machine is shared "
        "and its other load stretches wall-clock time unevenly.", "",
        "| model | cycles, 1 core | cycles, 8 cores | speed-up | convolutions' speed-up | instructions, 1 core | "
        "instructions, 8 cores (all) | mean utilization | µJ, 1 core | µJ, 8 cores | sim s, 1 core | sim s, 8 cores | "
        "sim time per instruction, 8 over 1 | exposed DMA, 1 core | exposed DMA, 8 cores |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *[f"| {r['model']} | {r['cycles1']:,} | {r['cycles8']:,} | {r['speedup']:.2f}x | {_times(r['conv_speedup'])} | "
          f"{r['insns1']:,} | {r['insns8']:,} | {float(r['utilization']):.1%} | {r['uj1']:.1f} | {r['uj8']:.1f} | "
          f"{r['sim1']:.3f} | {r['sim8']:.3f} | {r['sim_ratio']:.2f}x | {float(r['dma1']):.2%} | "
          f"{float(r['dma8']):.2%} |" for r in rows], ""]
    by = {str(r["model"]): r for r in rows}
    for label, goal in GOALS.items():
        got = float(by[label]["speedup"])
        verdict = "met" if got >= goal else "not met"
        lines.append(f"- {label}, whole model: {got:.2f}x (goal at least {goal:g}x): {verdict}")
    conv = float(by["IC (ResNet-8)"]["conv_speedup"])
    lines.append(f"- IC (ResNet-8), convolutions: {conv:.2f}x (goal at least {CONV_GOAL:g}x): "
                 f"{'met' if conv >= CONV_GOAL else 'not met'}")
    worst = max(float(r["dma8"]) for r in rows)
    lines.append(f"- exposed DMA on 8 cores with 64 KiB of L1: at most {worst:.2%} of the cycles (goal at most "
                 f"{DMA_GOAL:.0%}): {'met' if worst <= DMA_GOAL else 'not met'}")
    for r in rows:
        ratio = float(r["sim_ratio"])
        lines.append(f"- {r['model']}, simulation time per instruction on 8 cores: {ratio:.2f}x one core's "
                     f"(goal at most {SIM_GOAL:g}x): {'met' if ratio <= SIM_GOAL else 'not met'}")
    return [*lines, ""]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-cluster-") as tmp:
        print("\n".join(cluster_report(Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
