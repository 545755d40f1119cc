"""Sub-byte weight modes (issue 20, part 6): the DLA (and QVanilla) on ResNet-8 at 8, 4 and 2 weight bits.

For each accelerator configuration and width: `mote explore`'s row (the cost model's accelerator cycles, the
weights' bytes, the largest job's SRAM, DMA bytes, the energy per inference and the accuracy against the
8-bit model on 8 seeded random inputs: top-1 agreement and mean absolute output error in int8 steps), and
a run on the virtual platform (rv32, the accelerator timed): bit-exact with the reference of the narrowed
model, its accelerator cycles and the firmware's constant bytes in flash.

`make bench` calls `report(work)` (benchmarks/run.py); run alone: `python benchmarks/subbyte_accel.py`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mote.accel import find_accelerator  # noqa: E402
from mote.explore.sweep import sweep  # noqa: E402
from mote.pipeline import run  # noqa: E402
from mote.targets.rv32 import Rv32, Rv32Config  # noqa: E402

MODEL = REPO / "models" / "mlperf-tiny" / "pretrainedResnet_quant.tflite"
CONFIGS = (("dla", {"pes": ["16", "64"]}), ("qvanilla", {}))
WIDTHS = ["8", "4", "2"]


def measure(model: Path = MODEL) -> list[dict[str, Any]]:
    """One row per accelerator configuration and width: the exploration's figures and the VP run's."""
    rows: list[dict[str, Any]] = []
    target = Rv32(Rv32Config(cc="zig"))
    for accel, space in CONFIGS:
        points, _ = sweep([model], accel, {**space, "weight_bits": WIDTHS}, workers=1, progress=False)
        for row in points:
            settings = ",".join(f"{k}={row[k]}" for k in (*space, "weight_bits"))
            report = run(model, target=target, accelerator=find_accelerator(f"{accel}:{settings},timed=1"))
            sim = report.figures.sim
            rows.append({**row, "accel": accel, "vp_bit_exact": report.mismatches == 0,
                         "vp_accel_cycles": sim.accel_cycles, "flash_weights_bytes": report.compiled.weights_bytes})
    return rows


def report(work: Path | None = None, model: Path = MODEL) -> list[str]:
    """Markdown lines for benchmarks/RESULTS.md (`work` is unused: nothing is written)."""
    rows = measure(model)
    lines = [
        "## Sub-byte weights on the accelerators (ResNet-8)", "",
        f"`{model.name}` with `--accel dla:pes=N,weight_bits=B` and `qvanilla:weight_bits=B`: the offloaded "
        "layers' weights narrowed per channel to B bits at compile time (mote.passes.accel_weights) and run "
        "in that mode, packed. Cost-model figures from `mote explore` (`--sweep weight_bits=8,4,2`); the VP "
        "column is the timed run on rv32, checked bit for bit against the reference of the narrowed model. "
        "Accuracy: against the 8-bit model on 8 seeded random inputs (no labelled data), top-1 agreement and "
        "mean |Δ| of the int8 softmax output; on random inputs the 8-bit model answers one class for 6 of the 8, "
        "so a narrowed model that always answered it would agree on 75% without being any good: read these as "
        "agreement on random inputs, not task accuracy. MAC lanes per mode and the "
        "sub-byte energy figures are the documented assumptions of docs/area.md.", "",
        "| accelerator | weight bits | accel cycles (model) | accel cycles (VP) | total cycles | weight bytes | "
        "flash constants | SRAM used | DMA bytes | energy µJ (accel) | top-1 agreement | mean abs error | "
        "bit-exact |", "|" + "---|" * 13,
    ]
    for r in rows:
        name = f"dla pes={r['pes']}" if r["accel"] == "dla" else r["accel"]
        sram = f"{r['sram_used_bytes']:,}" if r.get("sram_used_bytes") is not None else "—"
        dma = f"{r['dma_bytes']:,}" if r.get("dma_bytes") is not None else "—"
        top1 = "—" if r.get("top1_agreement") is None else f"{r['top1_agreement']:.0%}"
        lines.append(
            f"| {name} | {r['weight_bits']} | {r['accel_cycles']:,} | {r['vp_accel_cycles']:,} | "
            f"{r['total_cycles']:,} | {r['weight_bytes']:,} | {r['flash_weights_bytes']:,} | {sram} | {dma} | "
            f"{r['energy_uj']:.2f} ({r['accel_energy_uj']:.2f}) | {top1} | {r['mean_abs_error']:g} | "
            f"{'yes' if r['vp_bit_exact'] else 'NO'} |")
    return [*lines, ""]


if __name__ == "__main__":
    print("\n".join(report()))
