"""Issue 16's figures: float32 and int16 (16x8) models on the host against TFLite Micro and on the rv32 virtual
platform (float in software on rv32imc and in hardware on rv32imfc), and the micro_speech-shaped depthwise
convolution on rv32."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
from host_timing import BATCHES, host_cores, host_us, timing_iterations
from tflite_micro.python import tflite_micro

from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32
from mote.tflm_match import tflm_match

REPO = Path(__file__).resolve().parents[1]
# The sine model ships with the tflite-micro package (Apache-2.0): read from there, never copied in.
SINE = Path(tflite_micro.__path__[0]) / "sine_float.tflite"
MODELS = {"digits CNN, float32 (models/float)": REPO / "models" / "float" / "digits_cnn_f32.tflite",
          "sine regressor, float32 (tflite-micro's example)": SINE,
          "digits CNN, 16x8 (models/int16)": REPO / "models" / "int16" / "digits_cnn_16x8.tflite"}
REPEATS = 5


def _tflm_us(path: Path, inputs: dict[str, np.ndarray], macs: int) -> float:
    """Timed as mote's host binary times itself (host_timing.host_us): about 1e8 MACs of inferences in
    up to BATCHES short batches, the median batch's time per inference, REPEATS times, the median of those
    (a long timed loop would count the time other processes had the core: one side's time, not the other's)."""
    from tflite_micro.python.tflite_micro import runtime

    interp = runtime.Interpreter.from_file(str(path), arena_size=4 << 20)
    for i, value in enumerate(inputs.values()):
        interp.set_input(value, i)
    interp.invoke()
    iterations = timing_iterations(macs)
    batches = min(iterations, BATCHES)
    batch = iterations // batches
    repeats = []
    for _ in range(REPEATS):
        samples = []
        for _ in range(batches):
            start = time.perf_counter()
            for _ in range(batch):
                interp.invoke()
            samples.append((time.perf_counter() - start) * 1e6 / batch)
        repeats.append(statistics.median(samples))
    return statistics.median(repeats)


def measure_model(label: str, path: Path, work: Path) -> dict[str, object]:
    compile_s = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        compiled = compile_graph(load(path))
        compile_s.append(time.perf_counter() - start)
    graph = compiled.graph
    inputs = random_inputs(graph, 0)
    mote_us = {core.value: host_us(graph, core, work, inputs) for core in host_cores()}
    runs = {isa: build_rv32(compile_graph(graph, core=Core.SCALAR), work / f"{path.stem}-{isa}",
                            Rv32Config(cc="zig", isa=isa)).run(inputs) for isa in ("rv32imc", "rv32imfc")}
    matches = {tflm_match(path, graph, inputs, vp.outputs).describe() for vp in runs.values()}
    return {"model": label, "macs": compiled.macs, "mote_us": mote_us, "tflm_us": _tflm_us(path, inputs, compiled.macs),
            "compile_s": statistics.median(compile_s),
            "instructions": {isa: vp.instructions for isa, vp in runs.items()}, "tflm": " / ".join(sorted(matches))}


def micro_speech_depthwise() -> bytes:
    """A layer shaped like micro_speech's first one: 49x40x1 in, depth multiplier 8, a 10x8 filter, stride 2."""
    rng = np.random.default_rng(0)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 49, 40, 1], "int8", scale=0.1, zero_point=-10)
    scales = list(rng.uniform(0.002, 0.02, 8))
    w = mb.tensor("w", [1, 10, 8, 8], "int8", scale=scales, zero_point=0, axis=3,
                  data=rng.integers(-127, 128, [1, 10, 8, 8]))
    b = mb.tensor("b", [8], "int32", scale=[0.1 * s for s in scales], zero_point=0, data=rng.integers(-500, 500, 8))
    y = mb.tensor("y", [1, 25, 20, 8], "int8", scale=0.05, zero_point=-128)
    mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], padding="SAME", stride_h=2, stride_w=2, depth_multiplier=8,
          fused_activation_function="RELU")
    return mb.build([x], [y])


def measure_micro_speech(work: Path) -> dict[str, object]:
    graph = load_tflite(micro_speech_depthwise(), "micro_speech_dw")
    compiled = compile_graph(graph, core=Core.SCALAR)
    run = build_rv32(compiled, work / "micro_speech_dw", Rv32Config(cc="zig")).run(random_inputs(graph, 0))
    return {"kernel": compiled.layers[0].kernel, "macs": compiled.macs, "instructions": run.instructions,
            "per_mac": run.instructions / compiled.macs}


def operator_set_report(work: Path) -> list[str]:
    rows = [measure_model(label, path, work) for label, path in MODELS.items()]
    cores = list(rows[0]["mote_us"])  # type: ignore[arg-type]
    speech = measure_micro_speech(work)
    return [
        "## Float32 and int16 models (issue 16)", "",
        "Host: time per inference, mote's generated C (gcc -O2, -ffp-contract=off) against TFLite Micro's "
        "interpreter (the `tflite-micro` package, called from Python) in the same run, both timed alike: about 1e8 "
        "MACs of inferences in up to 1,000 short batches, the median batch, the median of 5 such runs (a long "
        "timed loop would also count the time other processes had the core). rv32: one inference on the virtual "
        "platform, "
        "float in software through zig's compiler runtime (rv32imc) and in hardware (rv32imfc, `--isa rv32imfc`), "
        "with the scalar core's register-blocked 16x8 and float32 convolutions, depthwise convolutions and fully "
        "connected layers (`mote/ops/blocked_16x8.py`, `mote/ops/blocked_f32.py`); both runs' outputs compared with "
        "TFLite Micro's.", "",
        "| model | MACs | compile s | " + " | ".join(f"mote {c} µs" for c in cores)
        + " | TFLM µs | " + " | ".join(f"speed-up {c}" for c in cores)
        + " | rv32imc instructions | per MAC | rv32imfc instructions | per MAC | rv32 outputs vs TFLM |",
        "|---|---:|---:|" + "---:|" * (2 * len(cores) + 5) + "---|",
        *[f"| {r['model']} | {r['macs']:,} | {r['compile_s']:.3f} | "
          + " | ".join(f"{r['mote_us'][c]:.1f}" for c in cores)  # type: ignore[index]
          + f" | {r['tflm_us']:.1f} | "
          + " | ".join(f"{float(r['tflm_us']) / r['mote_us'][c]:.1f}x" for c in cores)  # type: ignore[index]
          + "".join(f" | {r['instructions'][isa]:,} | {r['instructions'][isa] / r['macs']:.1f}"  # type: ignore[index]
                    for isa in ("rv32imc", "rv32imfc"))
          + f" | {r['tflm']} |" for r in rows], "",
        "## micro_speech's depthwise convolution on rv32 (issue 16)", "",
        "One layer shaped like micro_speech's first (49x40x1 input, depth multiplier 8, 10x8 filter, stride 2, "
        f"SAME), built by `benchmarks/operator_set.py`: kernel {speech['kernel']}, {speech['macs']:,} MACs, "
        f"{speech['instructions']:,} instructions, {speech['per_mac']:.1f} per MAC (goal: at most 4).", "",
    ]
