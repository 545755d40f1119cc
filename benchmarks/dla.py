"""Seed 004's DLA experiment on VWW's MobileNetV1, exploration speed and the cost model's error.

`dla_report(models_dir)` returns markdown lines for benchmarks/RESULTS.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mote.explore.report import size_text
from mote.explore.sweep import sweep
from mote.explore.verify import verify

SEED_SWEEP = {"pes": ["64", "128"], "sram": ["512KiB", "1MiB", "256MiB"], "mode": ["input", "output"],
              "depthwise": ["none", "emulated", "native"]}
# VWW at 96x96 with width 0.25 fits 512 KiB whole; these sizes make tiling matter as it did for the
# seed's 224x224 MobileNetV1.
SMALL_SWEEP = {"pes": ["64", "128"], "sram": ["32KiB", "64KiB", "128KiB", "256MiB"], "mode": ["input", "output"],
               "depthwise": ["native"]}
SPEED_SWEEP = {"pes": ["16", "32", "64", "128", "256"], "sram": ["32KiB", "64KiB", "128KiB", "512KiB", "1MiB"],
               "mode": ["input", "output"], "depthwise": ["none", "emulated", "native"],
               "dma_bytes_per_cycle": ["4", "8", "16", "32"]}


def _text(row: dict[str, Any], key: str) -> str:
    """A setting as the sweeps above spell it (the rows hold typed values: sram in bytes)."""
    return size_text(row[key]) if key == "sram" else str(row[key])


def _find(rows: list[dict[str, Any]], **settings: str) -> dict[str, Any]:
    return next(r for r in rows if all(_text(r, k) == v for k, v in settings.items()))


def _table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| PEs | SRAM | dataflow | depthwise | cycles | CONV | DEPTH | REQUANT | POOL | DMA (exposed) | "
             "PE utilization | tiled jobs | inputs in SRAM | CPU nodes |", "|" + "---|" * 14]
    for r in rows:
        if r["status"] != "ok":
            lines.append(f"| {r['pes']} | {_text(r, 'sram')} | {r['mode']} | {r['depthwise']} | {r['status']} |" +
                         " |" * 9)
            continue
        lines.append(f"| {r['pes']} | {_text(r, 'sram')} | {r['mode']} | {r['depthwise']} | {r['accel_cycles']:,} | "
                     f"{r['CONV']:,} | {r['DEPTH']:,} | {r['REQUANT']:,} | {r['POOL']:,} | {r['DMA']:,} | "
                     f"{r['utilization']:.1%} | {r['tiled_jobs']} | {r['resident_inputs']} | {r['cpu_nodes']} |")
    return lines


def dla_report(models_dir: Path, verify_points: int = 3) -> list[str]:
    model = models_dir / "vww_96_int8.tflite"
    # The accelerator's cycles by its cost model alone (cpu=False): the tables compare DLA configurations.
    seed_rows, _ = sweep([model], "dla", SEED_SWEEP, progress=False, cpu=False)
    small_rows, _ = sweep([model], "dla", SMALL_SWEEP, progress=False, cpu=False)
    speed_rows, seconds = sweep([model], "dla", SPEED_SWEEP, progress=False, cpu=False)
    dask_rows, dask_seconds = _on_local_dask(model)
    checks = verify([model], "dla", [r for r in small_rows if r["status"] == "ok"], verify_points, list(SMALL_SWEEP))
    lines = ["## The DLA (seed 004) on VWW's MobileNetV1", "",
             "Cost-model cycles of the offloaded layers (mote explore); \"inputs in SRAM\": jobs that read their "
             "input where the previous job kept it, with neither job moving it by DMA. Seed 004's grid:", ""]
    lines += _table(seed_rows)
    lines += ["", "Smaller SRAMs, where VWW's 96x96 layers need tiling:", ""]
    lines += _table(small_rows)

    def cyc(rows: list[dict[str, Any]], **s: str) -> int:
        return int(_find(rows, **s)["accel_cycles"])

    big = {"sram": "256MiB", "depthwise": "native"}
    out64, in64 = cyc(seed_rows, pes="64", mode="output", **big), cyc(seed_rows, pes="64", mode="input", **big)
    tight_out = cyc(small_rows, pes="64", mode="output", sram="32KiB")
    tight_in = cyc(small_rows, pes="64", mode="input", sram="32KiB")
    mib128 = cyc(seed_rows, pes="128", sram="1MiB", mode="output", depthwise="native")
    emulated = cyc(seed_rows, pes="64", sram="256MiB", mode="output", depthwise="emulated")
    native = cyc(seed_rows, pes="64", sram="256MiB", mode="output", depthwise="native")
    lines += ["", "Seed 004's findings, checked:", "",
              f"- Output-parallel vs input-parallel without memory pressure (64 PEs, 256 MiB, native): "
              f"{out64:,} vs {in64:,} cycles: output-parallel {'wins' if out64 < in64 else 'does not win'}.",
              f"- Under a tight SRAM (64 PEs, 32 KiB): output {tight_out:,} vs input {tight_in:,} cycles "
              f"(ratio output/input {tight_out / tight_in:.2f}, against {out64 / in64:.2f} without pressure). mote "
              "tiles rows as well as output channels, so it need not shrink the output-channel parallelism the way "
              "the seed's channel-only tiling did.",
              f"- 1 MiB with 128 PEs vs 256 MiB with 64 PEs (output, native): {mib128:,} vs {out64:,} cycles: "
              f"{'faster' if mib128 < out64 else 'not faster'}.",
              f"- Emulated vs native depthwise (64 PEs, 256 MiB, output): {emulated:,} vs {native:,} cycles "
              f"({emulated / native:.1f}x).", "",
              f"Exploration speed: {len(speed_rows)} configurations of VWW in {seconds:.1f} s, "
              f"{60 * len(speed_rows) / seconds:,.0f} per minute on {_cores()} cores (goal: 1,000 per minute). "
              f"The same sweep on a local Dask cluster (`--dask`, 2 worker processes, started before timing): "
              f"{dask_seconds:.1f} s, {60 * len(dask_rows) / dask_seconds:,.0f} per minute, "
              f"{'the same rows' if dask_rows == speed_rows else 'DIFFERENT rows'}.", "",
              "Cost model against the virtual platform (timed mode, sampled points). The VP charges each job by "
              "its command-level timing simulation (mote.accel.dla.timing: dependencies from SRAM addresses, "
              "bus-aligned DMA beats at the real addresses, pipeline drain), not by the cost model:", "",
              "| configuration | cost model | VP | error | bit-exact |", "|---|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c['accel']} | {c['model_cycles']:,} | {c['vp_cycles']:,} | {c['error_percent']:+.2f}% | "
                     f"{c['bit_exact']} |")
    return lines


def _on_local_dask(model: Path) -> tuple[list[dict[str, Any]], float]:
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        return sweep([model], "dla", SPEED_SWEEP, progress=False, dask=cluster.scheduler_address, cpu=False)


def _cores() -> int:
    import os
    return os.cpu_count() or 1


if __name__ == "__main__":
    print("\n".join(dla_report(Path(__file__).resolve().parents[1] / "models" / "mlperf-tiny", 2)))
