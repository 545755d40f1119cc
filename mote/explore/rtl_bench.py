"""An RTL accelerator's speed-up on models (`mote accel bench`, benchmarks/rtl_qvanilla.py).

Each model runs twice on the virtual platform with the same inputs: with the accelerator simulated as its
RTL, and on the CPU alone. The row: the offloaded layers and jobs, the CPU-only cycles, the
CPU's and the RTL's cycles with the accelerator, the speed-up, the accelerator's cost model beside the
RTL's cycles (the whole model and its worst layer), the ROM and RAM the accelerator adds, and whether
the outputs are bit-exact: the run with the RTL against the CPU-only run, and both against mote's
reference interpreter. With a `weight_bits` setting below 8 both runs run the model with the weights the
accelerator narrows narrowed (the CPU-only run unpacks them in its kernels), so the two compare one model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

import mote
from mote.accel.interface import Accelerator
from mote.errors import MoteError
from mote.pipeline import RunReport, run
from mote.targets import Target
from mote.targets.rv32 import SimFigures

# The MLPerf Tiny models mote's repository bundles (models/README.md), by short name, in the order reported.
MLPERF_TINY = {"ad": "ad01_int8.tflite", "kws": "kws_ref_model.tflite", "resnet": "pretrainedResnet_quant.tflite",
               "vww": "vww_96_int8.tflite"}


def mlperf_tiny_dir() -> Path:
    return Path(mote.__file__).resolve().parents[1] / "models" / "mlperf-tiny"


def model_paths(names: Iterable[str] = ()) -> list[Path]:
    """The models to bench: short names of the bundled MLPerf Tiny models (ad, kws, resnet, vww) or model
    files; none given: all four."""
    paths = []
    for name in list(names) or list(MLPERF_TINY):
        if name.lower() in MLPERF_TINY:
            path = mlperf_tiny_dir() / MLPERF_TINY[name.lower()]
            if not path.is_file():
                raise MoteError(f"the bundled MLPerf Tiny model {path.name} is not beside this mote (a source "
                                "checkout has them in models/mlperf-tiny); give model files with --models")
        else:
            path = Path(name)
            if not path.is_file():
                raise MoteError(f"model {name!r} is neither a model file nor one of the bundled MLPerf Tiny models "
                                f"({', '.join(MLPERF_TINY)})")
        paths.append(path)
    return paths


def _sim(report: RunReport) -> Any:
    assert isinstance(report.figures, SimFigures), "bench runs on a virtual-platform target"
    return report.figures.sim


def compare(cpu_only: RunReport, with_rtl: RunReport) -> dict[str, Any]:
    """One model's row from its CPU-only run and its run with the RTL accelerator."""
    base, sim = _sim(cpu_only), _sim(with_rtl)
    stats = sim.accel_rtl or {"rtl_cycles": 0, "cost_model_cycles": 0, "jobs": 0, "layers": {},
                              "rtl_seconds": 0.0, "rtl_cpu_seconds": 0.0}
    rtl = int(stats["rtl_cycles"])
    total = sim.cycles + rtl
    layer_errors = [(v["cost_model_cycles"] - v["rtl_cycles"]) / v["rtl_cycles"]
                    for v in stats["layers"].values() if v["rtl_cycles"]]
    same = cpu_only.outputs.keys() == with_rtl.outputs.keys() and all(
        np.array_equal(cpu_only.outputs[k], v) for k, v in with_rtl.outputs.items())
    offloaded = [layer for layer in with_rtl.compiled.layers if layer.runs_on != "cpu"]
    return {
        "model": Path(with_rtl.model).name,
        "offloaded_layers": len(offloaded),
        "layers": len(with_rtl.compiled.layers),
        "offloaded_ops": sorted({layer.op for layer in offloaded}),
        "jobs": int(stats["jobs"]),
        "cpu_only_cycles": base.total_cycles,
        "cpu_cycles": sim.cycles,
        "rtl_cycles": rtl,
        "total_cycles": total,
        "speedup": base.total_cycles / total if total else None,
        "cost_model_cycles": int(stats["cost_model_cycles"]),
        "cost_model_error": (stats["cost_model_cycles"] - rtl) / rtl if rtl else None,
        "worst_layer_error": max(layer_errors, key=abs) if layer_errors else None,
        "rom_bytes": sim.rom_bytes,
        "rom_change_bytes": sim.rom_bytes - base.rom_bytes,
        "ram_bytes": sim.ram_bytes,
        "ram_change_bytes": sim.ram_bytes - base.ram_bytes,
        "bit_exact_with_cpu_only": same,
        "bit_exact_with_reference": cpu_only.bit_exact and with_rtl.bit_exact,
        "rtl_seconds": float(stats["rtl_seconds"]),
        "rtl_cpu_seconds": float(stats["rtl_cpu_seconds"]),
    }


def bench_model(path: Path, accel: Accelerator, target: Target, seed: int = 0) -> tuple[dict[str, Any], RunReport,
                                                                                         RunReport]:
    """The row of one model, with its two runs (with the RTL first, so that a failing design stops the bench
    at once; then on the CPU alone; the same inputs). `seconds`: both runs, wall-clock; `rtl_run_seconds` and
    `rtl_run_cpu_seconds`: the run with the RTL alone, wall-clock and this process's CPU time (the cross
    compiler runs in child processes, not counted)."""
    began, cpu = time.perf_counter(), time.process_time()
    with_rtl = run(path, target=target, seed=seed, accelerator=accel)
    middle, cpu = time.perf_counter(), time.process_time() - cpu
    cpu_only = run(path, target=target, seed=seed, narrow_as=accel)
    row = compare(cpu_only, with_rtl)
    row.update(seconds=round(time.perf_counter() - began, 2), rtl_run_seconds=round(middle - began, 2),
               rtl_run_cpu_seconds=round(cpu, 2))
    return row, cpu_only, with_rtl


def bench(paths: list[Path], accel: Accelerator, target: Target, seed: int = 0,
          progress: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """The rows of `paths`, in order; `progress` sees each as it is done."""
    rows = []
    for path in paths:
        row = bench_model(path, accel, target, seed)[0]
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2%}"


def _bytes(n: int) -> str:
    return f"{n:+,} B" if n else "0"


# each header in two lines (the terminal's table shows them so; a page joins them)
HEADER_LINES = (("", "model"), ("offloaded", "layers"), ("CPU only", "cycles"), ("with RTL", "CPU cycles"),
                ("", "+ accel."), ("", "= cycles"), ("", "speed-up"), ("cost model", "vs RTL"),
                ("worst", "layer"), ("ROM", "change"), ("RAM", "change"), ("bit-", "exact"))
HEADERS = tuple(" ".join(filter(None, lines)).replace("- ", "-") for lines in HEADER_LINES)


def table_rows(rows: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The table's cells, as text (HEADERS' order); byte changes in bytes."""
    out = []
    for r in rows:
        exact = r["bit_exact_with_cpu_only"] and r["bit_exact_with_reference"]
        speedup = "-" if r["speedup"] is None else f"{r['speedup']:.2f}x"
        out.append((Path(r["model"]).stem, f"{r['offloaded_layers']} of {r['layers']}", f"{r['cpu_only_cycles']:,}",
                    f"{r['cpu_cycles']:,}", f"{r['rtl_cycles']:,}", f"{r['total_cycles']:,}", speedup,
                    _percent(r["cost_model_error"]), _percent(r["worst_layer_error"]),
                    _bytes(r["rom_change_bytes"]), _bytes(r["ram_change_bytes"]), "yes" if exact else "NO"))
    return out


def notes(rows: list[dict[str, Any]], accel: Accelerator) -> list[str]:
    """What the table alone does not say: models nothing was offloaded from, outputs that differ."""
    lines = []
    idle = [r["model"] for r in rows if not r["offloaded_layers"]]
    if idle:
        ops = ", ".join(sorted({p.op for p in accel.patterns()}))
        lines.append(f"nothing offloaded to {accel.name} on {', '.join(idle)}: no layer matches its patterns or "
                     f"passes their checks (it runs {ops}; `mote partition MODEL --accel ...` says why per layer)")
    for r in rows:
        if not r["bit_exact_with_cpu_only"]:
            lines.append(f"{r['model']}: the outputs with the RTL differ from the CPU-only run's")
        elif not r["bit_exact_with_reference"]:
            lines.append(f"{r['model']}: the outputs differ from mote's reference interpreter")
    return lines
