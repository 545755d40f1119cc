"""int8 BATCH_MATMUL of two activations shaped like a small transformer's attention (Q . K^T and
attention . V, a few heads), one inference each on the rv32 virtual platform: the kernel mote picks and its
instructions per MAC, counted between the layer's profiler marks (kernels for a scalar core, zig -O2); then on
the Cortex-M4 (issue 19): the DSP kernel (SMLAD) against the register-blocked one it replaces there, with zig's
clang and, where installed, arm-none-eabi-gcc.
Run alone: `python benchmarks/attention_matmul.py`."""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.cortexm import CortexMConfig, build_cortexm
from mote.targets.rv32 import Rv32Config, build_rv32

GOAL = 3.0  # instructions per MAC


@dataclass(frozen=True)
class Shape:
    label: str
    a: tuple[int, ...]
    b: tuple[int, ...]
    adj_y: bool = False


SHAPES = (
    Shape("Q . K^T, 4 heads, seq 32, head 16 (K given [16, 32])", (4, 32, 16), (4, 16, 32)),
    Shape("Q . K^T, 4 heads, seq 32, head 16 (K given [32, 16], adj_y)", (4, 32, 16), (4, 32, 16), True),
    Shape("attention . V, 4 heads, seq 32, head 16", (4, 32, 32), (4, 32, 16)),
    Shape("Q . K^T, 2 heads, seq 16, head 32", (2, 16, 32), (2, 32, 16)),
    Shape("one decode step: q . K^T, 4 heads, context 64, head 16", (4, 1, 16), (4, 16, 64)),
    Shape("one decode step: q . K^T, K cached [64, 16] (adj_y)", (4, 1, 16), (4, 64, 16), True),
    Shape("one decode step: weights . V, context 64", (4, 1, 64), (4, 64, 16)),
)


def matmul_model(shape: Shape) -> bytes:
    mb = ModelBuilder()
    a = mb.tensor("a", list(shape.a), "int8", scale=0.05, zero_point=-3)
    b = mb.tensor("b", list(shape.b), "int8", scale=0.04, zero_point=5)
    cols = shape.b[-2] if shape.adj_y else shape.b[-1]
    y = mb.tensor("y", [*shape.a[:-1], cols], "int8", scale=0.2, zero_point=-1)
    mb.op("BATCH_MATMUL", [a, b], [y], adj_x=False, adj_y=shape.adj_y)
    return mb.build([a, b], [y])


def measure(shape: Shape, work: Path) -> dict[str, object]:
    graph = load_tflite(matmul_model(shape), "matmul")
    compiled = compile_graph(graph, core=Core.SCALAR)
    project = work / f"matmul-{SHAPES.index(shape)}"
    run = build_rv32(compiled, project, Rv32Config(cc="zig")).run(random_inputs(graph, 0))
    (profile,) = run.layers
    return {"shape": shape, "kernel": compiled.layers[0].kernel, "macs": compiled.macs,
            "instructions": profile.instructions, "per_mac": profile.instructions / compiled.macs}


DSP_KERNEL = "mote_batch_matmul_dsp_s8"
M4_SHAPES = (Shape("16x64 . 64x16", (16, 64), (64, 16)), Shape("64x16 . 16x64", (64, 16), (16, 64)),
             *SHAPES[:4])


def measure_m4(shape: Shape, cc: str, dsp: bool, work: Path) -> tuple[str, int, int]:
    """(kernel, MACs, instructions of the layer) on the Cortex-M4; without `dsp` the DSP record declines the
    layer (the flash budget's skip), so the kernel table's next record runs it."""
    graph = load_tflite(matmul_model(shape), "matmul")
    skip = {} if dsp else {graph.nodes[0].name: frozenset({DSP_KERNEL})}
    compiled = compile_graph(graph, core=Core.DSP, compact=skip)
    project = work / f"m4-{M4_SHAPES.index(shape)}-{cc}-{dsp}"
    run = build_cortexm(compiled, project, CortexMConfig(cpu="cortex-m4", cc=cc)).run(random_inputs(graph, 0))
    (profile,) = run.layers
    return compiled.layers[0].kernel, compiled.macs, profile.instructions


def report_m4(work: Path) -> list[str]:
    compilers = ["zig", *(["gcc"] if shutil.which("arm-none-eabi-gcc") else [])]
    lines = ["## Attention-shaped int8 BATCH_MATMUL on the Cortex-M4 (issue 19)", "",
             "The same operands (and two single-head ones) on the Cortex-M4, -O2: instructions per MAC of the DSP "
             f"kernel ({DSP_KERNEL}: operands widened once to int16 pairs less their zero points, a 2x2 block of "
             "SMLAD sums) against the register-blocked kernel the table chose before it.", "",
             "| operands | MACs | " + " | ".join(f"{cc}: blocked | {cc}: DSP | {cc}: fewer" for cc in compilers)
             + " |", "|---|---:|" + "---:|---:|---:|" * len(compilers)]
    for shape in M4_SHAPES:
        cells = []
        for cc in compilers:
            kernel, macs, before = measure_m4(shape, cc, False, work)
            chosen, _, after = measure_m4(shape, cc, True, work)
            assert chosen == DSP_KERNEL and kernel != DSP_KERNEL, (kernel, chosen)
            cells.append(f"{before / macs:.2f} | {after / macs:.2f} | {before / after:.2f}x")
        lines.append(f"| {shape.label} | {macs:,} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def report(work: Path) -> list[str]:
    rows = [measure(shape, work) for shape in SHAPES]
    return [
        "## Attention-shaped int8 BATCH_MATMUL on rv32 (issue 17)", "",
        "Two int8 activations (zero points -3 and 5), built by `benchmarks/attention_matmul.py`; instructions "
        f"counted between the layer's profiler marks, zig -O2, kernels for a scalar core. Goal: at most {GOAL:g} "
        "instructions per MAC. A decode step's single row reads each byte of B once, one load, multiply and add "
        "per MAC before any output stage: rv32im (no packed SIMD) leaves those shapes above the goal.", "",
        "| operands | kernel | MACs | instructions | instr/MAC |", "|---|---|---:|---:|---:|",
        *[f"| {r['shape'].label} | {r['kernel']} | {r['macs']:,} | {r['instructions']:,} | "  # type: ignore[attr-defined]
          f"{r['per_mac']:.2f} |" for r in rows], "", *report_m4(work),
    ]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-matmul-") as tmp:
        print("\n".join(report(Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
