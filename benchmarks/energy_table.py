"""µJ per inference of the four MLPerf Tiny models on the three built-in platforms (mcu: one core; cluster8: 8 cores
with 64 KiB of L1 and its DMA; cluster8+dla: the same with the DLA, timed), beside published MLPerf Tiny energy
results measured on real boards. Run alone: `python benchmarks/energy_table.py`; `energy_report(work)` gives the
section of benchmarks/RESULTS.md.

The published figures are the median µJ per inference of the EEMBC EnergyRunner windows in each submission's
energy/results.txt, MLPerf Tiny Inference v1.0 results (github.com/mlcommons/tiny_results_v1.0), closed division:
  closed/STMicroelectronics/results/NUCLEO-U575ZI-Q/<model>/energy/results.txt
  closed/OctoML/results/microtvm_cmsis_nn/NUCLEO_L4R5ZI/<model>/energy/results.txt
docs/energy.md says what they measure and why they are not the same quantity as the simulator's estimate."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from mote.accel import find_accelerator
from mote.codegen.compile import compile_graph
from mote.frontend import load
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.sim.platforms import builtin
from mote.sim.results import SimResult
from mote.targets.rv32 import Rv32Config, build_rv32

MODELS = Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny"
ENERGY_MODELS = {"AD (ToyCar)": ("ad01_int8.tflite", "ad"), "KWS (DS-CNN)": ("kws_ref_model.tflite", "kws"),
                 "IC (ResNet-8)": ("pretrainedResnet_quant.tflite", "ic"),
                 "VWW (MobileNetV1)": ("vww_96_int8.tflite", "vww")}
# (platform, cores, accelerator): the DLA timed, so that its cycles are on the clock
PLATFORMS = (("mcu", 1, None), ("cluster8", 8, None), ("cluster8+dla", 8, "dla:timed=1"))
# Published: MLPerf Tiny Inference v1.0, closed division, median energy per inference (µJ) from each
# submission's <model>/energy/results.txt ("Median energy cost is ... uJ/inf.").
ROUND = "MLPerf Tiny Inference v1.0 (closed division)"
PUBLISHED = {
    "STMicroelectronics, NUCLEO-U575ZI-Q": {"ad": 119.113, "kws": 1138.534, "ic": 3641.998, "vww": 3364.456},
    "OctoML (microTVM with CMSIS-NN), NUCLEO-L4R5ZI": {"ad": 443.184, "kws": 5230.273, "ic": 20236.298,
                                                     "vww": 15531.354},
}
DEEPLOY_UJ_PER_TOKEN = 490.0  # Deeploy on Siracusa, the seeds' system figure (docs/energy.md)


def run_on(file: str, platform: str, cores: int, accel: str | None, work: Path) -> SimResult:
    """One inference on random inputs, its outputs checked against the reference interpreter; its µJ include
    the accelerator's MACs, SRAM accesses and DMA bytes per offloaded layer (mote.sim.energy), as `mote explore`
    prices them."""
    graph = load(MODELS / file)
    accelerator = find_accelerator(accel) if accel else None
    compiled = compile_graph(graph, accelerator, core=Core.SCALAR)
    config = Rv32Config(cc="zig", platform=builtin(platform).with_cores(cores) if cores > 1 else builtin(platform),
                        cores=cores)
    firmware = build_rv32(compiled, work / f"{Path(file).stem}-{platform}", config)
    inputs = random_inputs(compiled.graph, 0)
    result = firmware.run(inputs)
    for name, value in interpret(graph, inputs).items():
        assert np.array_equal(result.outputs[name], value), f"{file} on {platform}: output {name} differs"
    return result


def measure(work: Path) -> dict[str, dict[str, SimResult]]:
    return {label: {platform: run_on(file, platform, cores, accel, work) for platform, cores, accel in PLATFORMS}
            for label, (file, _) in ENERGY_MODELS.items()}


def _cycles(r: SimResult) -> str:
    if not r.accel_cycles:
        return f"{r.cycles:,}"
    return f"{r.cycles + r.accel_cycles:,} ({r.cycles:,} + DLA {r.accel_cycles:,})"


def energy_report(work: Path) -> list[str]:
    rows = measure(work)
    boards = list(PUBLISHED)
    lines = [
        "## Energy per inference: the four models on mcu, cluster8 and cluster8+dla, beside published boards", "",
        "`benchmarks/energy_table.py`: each model built for each built-in platform (zig -O2, scalar kernels; mcu with "
        "its one core, cluster8 and cluster8+dla with 8 cores; cluster8+dla offloads to the DLA (`dla:timed=1`) "
        "what it takes, the CPU runs the rest), one inference on random inputs, outputs equal to the reference "
        "interpreter's. "
        "µJ: the simulator's energy model (docs/energy.md: 45 nm figures from Horowitz, ISSCC 2014; dynamic energy of "
        "the counted events only, no leakage; on cluster8+dla the DLA's share is its MACs at 0.3 pJ, its SRAM "
        "accesses by its SRAM's size and the bytes its DMA moves, per offloaded layer from the DLA's cost model, "
        "priced as `mote explore` prices them, so a run's µJ and the exploration's agree). "
        "Cycles: the critical path (on cluster8+dla plus the DLA's own cycles; the CPU waits for each job).", "",
        f"Published: {ROUND}, median µJ per inference measured with EEMBC's EnergyRunner on the whole board's MCU "
        "supply (github.com/mlcommons/tiny_results_v1.0, closed/<submitter>/results/<system>/<model>/energy/"
        "results.txt). Those are measured chips at their nodes, leakage and clocks included; the simulator's "
        "are estimates of a 45 nm core's dynamic energy: the columns sit side by side for scale, not as a "
        "validation.", "",
        "| model | mcu µJ | mcu cycles | cluster8 µJ | cluster8 cycles | cluster8+dla µJ (of which the DLA's) | "
        "cluster8+dla cycles | " + " | ".join(f"{b} µJ" for b in boards) + " |",
        "|---|" + "---:|" * (6 + len(boards)),
    ]
    for label, (_, key) in ENERGY_MODELS.items():
        r = rows[label]
        cells = []
        for platform, _, accel in PLATFORMS:
            result = r[platform]
            e = result.energy
            uj = "-" if e is None else f"{e.uj:.1f}" + (f" ({e.accel_pj / 1e6:.1f})" if accel else "")
            cells += [uj, _cycles(result)]
        lines.append(f"| {label} | " + " | ".join(cells) + " | "
                     + " | ".join(f"{PUBLISHED[b][key]:,.1f}" for b in boards) + " |")
    lines += ["", f"The language model's energy per token is in the tiny language model section "
              f"(`benchmarks/tiny_lm.py`), beside Deeploy's {DEEPLOY_UJ_PER_TOKEN:g} µJ per token on Siracusa.", ""]
    return lines


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="mote-energy-") as tmp:
        print("\n".join(energy_report(Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
