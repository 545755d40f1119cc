"""The `mote` command's tables and summaries on the terminal. Every model-derived string goes
through mote.terminal.markup first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from mote.arena_notes import describe
from mote.cli_offload import accelerator_of, split_line, summary_lines, total_cycles
from mote.pipeline import RunReport
from mote.sim.energy import Energy
from mote.stream import StreamReport
from mote.targets.host import HostFigures
from mote.targets.rv32 import SimFigures
from mote.terminal import console, markup


def short(name: str, width: int = 36) -> str:
    """The name's end (where TFLite puts the distinguishing part), made safe for a rich table."""
    return markup(name if len(name) <= width else "…" + name[-(width - 1):])


def print_run(report: RunReport) -> None:
    data = report.to_json()
    table = Table(title=f"{markup(Path(report.model).name)} on {report.target}")
    for column in ("#", "layer", "op", "kernel", "scratch", "MACs"):
        table.add_column(column, justify="right" if column in ("#", "scratch", "MACs") else "left")
    for layer in data["layers"]:
        scratch = f"{layer['scratch_bytes']:,}" if layer["scratch_bytes"] else "-"
        table.add_row(str(layer["index"]), short(layer["name"]), markup(layer["op"]), markup(layer["kernel"]),
                      scratch, f"{layer['macs']:,}")
    out = console()
    out.print(table)
    print_summary(out, data, report)


def print_profile(report: RunReport) -> None:
    data = report.to_json()
    table = Table(title=f"{markup(Path(report.model).name)} on the rv32 virtual platform")
    dma = data.get("dma") is not None  # a platform with an L1 and its DMA: the bytes moved and the stalls
    cluster = any("cores" in layer for layer in data["layers"])
    # with an accelerator: its cycles per layer, and each layer's share of CPU + accelerator cycles (else of
    # the instructions), so that a CPU layer is not blamed for the time the accelerator takes
    accelerator = accelerator_of(report)
    accel, timed = accelerator is not None, accelerator is not None and accelerator.timed
    whole = sum(total_cycles(layer) for layer in data["layers"] if "cycles" in layer)
    columns = ("#", "layer", "op", "kernel", "instructions", "cycles", *(("accel cycles",) if accel else ()),
               "share", "MACs", "instr/MAC", "µJ",
               *(("DMA B", "DMA stall") if dma else ()), *(("cores busy",) if cluster else ()))
    for column in columns:
        table.add_column(column, justify="left" if column in ("layer", "op", "kernel", "cores busy") else "right")
    for layer in data["layers"]:
        if "instructions" not in layer:  # an in-place layer runs no code
            continue
        per_mac = layer["instructions_per_mac"]
        moved = layer.get("dma")
        table.add_row(str(layer["index"]), short(layer["name"], 28), markup(layer["op"]), markup(layer["kernel"]),
                      f"{layer['instructions']:,}", f"{layer['cycles']:,}",
                      *((f"{layer['accel_cycles']:,}" if layer.get("accel_cycles") else "-",) if accel else ()),
                      f"{(total_cycles(layer) / whole if whole else 0.0) if timed else layer['share']:.1%}",
                      f"{layer['macs']:,}", f"{per_mac:.2f}" if per_mac else "-",
                      "-" if layer.get("energy_uj") is None else f"{layer['energy_uj']:.2f}",
                      *((f"{moved['bytes']:,}", f"{moved['exposed_cycles']:,}") if moved else ("-", "-"))[:2 * dma],
                      *((utilization(layer),) if cluster else ()))
    out = console()
    out.print(table)
    if timed:
        out.print("share: of the layers' CPU + accelerator cycles")
        split = split_line(data, report)
        if split is not None:
            out.print(split)
    print_summary(out, data, report)


def utilization(layer: dict[str, Any]) -> str:
    """Each core's busy share of a layer's cycles on a cluster, in core order (e.g. "99 97 97 0 ...%")."""
    return " ".join(f"{round(100 * c['utilization'])}" for c in layer.get("cores", ())) + "%"


def print_summary(out: Console, data: dict[str, Any], report: RunReport) -> None:
    verdict = "[green]bit-exact[/green]" if report.bit_exact else f"[red]{report.mismatches} mismatches[/red]"
    print_ = out.print
    for note in data["notes"]:
        print_(f"note: {markup(note)}")
    if isinstance(report, StreamReport):
        for line in stream_verdicts(report):
            print_(line)
    else:
        print_(f"outputs vs reference interpreter: {verdict}")
        if report.tflite_micro is not None:
            print_(f"outputs vs TFLite Micro: {markup(report.tflite_micro.describe())}")
    state = f", state {data['state_bytes']:,} B kept across calls" if data["state_bytes"] else ""
    print_(f"arena {data['arena_bytes']:,} B (disjoint-buffer bound {data['arena_lower_bound_bytes']:,} B){state}, "
           f"weights {data['weights_bytes']:,} B, {data['macs']:,} MACs")
    print_(markup(describe(data["arena"])))
    figures = report.figures
    if isinstance(figures, HostFigures):
        print_(f"{figures.us_per_inference or 0.0:.1f} µs per inference on the host ({markup(figures.cc)})")
    elif isinstance(figures, SimFigures) and isinstance(report, StreamReport):
        sim, per_call = figures.sim, report.figure_summary()
        ins, cyc = per_call["instructions"], per_call["cycles"]
        print_(markup(f"instructions per call: first {ins['first']:,}, median {ins['median']:,.0f} "
                      f"(min {ins['min']:,}, max {ins['max']:,}); cycles per call: first {cyc['first']:,}, "
                      f"median {cyc['median']:,.0f} ({sim.core}); ROM {sim.rom_bytes:,} B, RAM {sim.ram_bytes:,} B "
                      f"+ stack {sim.stack_bytes:,} B used; built with {sim.cc} {sim.cflags}"))
    elif isinstance(figures, SimFigures):
        sim = figures.sim
        per_mac = f", {figures.instructions_per_mac:.2f} per MAC" if figures.instructions_per_mac else ""
        print_(markup(f"{sim.instructions:,} instructions{per_mac}, {sim.cycles:,} cycles ({sim.core}); "
                      f"ROM {sim.rom_bytes:,} B, RAM {sim.ram_bytes:,} B + stack {sim.stack_bytes:,} B "
                      f"used; simulated in {sim.sim_seconds:.2f} s ({sim.sim_mips:.0f} MIPS); built with "
                      f"{sim.cc} {sim.cflags}"))
        for line in summary_lines(report):
            print_(line)
        if sim.dma is not None:
            share = sim.dma.exposed_cycles / sim.cycles if sim.cycles else 0.0
            print_(f"DMA: {sim.dma.jobs:,} jobs, {sim.dma.total_bytes:,} B, {sim.dma.exposed_cycles:,} cycles exposed "
                   f"({share:.2%} of the cycles)")
        if sim.accel_rtl is not None:
            rtl, mac = sim.accel_rtl, sim.accel_rtl.get("mac_model_cycles")
            print_(f"RTL accelerator: {rtl['rtl_cycles']:,} cycles in {rtl['jobs']:,} jobs (its cost model "
                   f"{rtl['cost_model_cycles']:,}{'' if mac is None else f', cycles-per-MAC model {mac:,}'}); "
                   f"clocked in {rtl['rtl_seconds']:.2f} s")
        if sim.peak_bytes:
            print_("peak bytes per memory: " + ", ".join(f"{markup(k)} {v:,} B" for k, v in sim.peak_bytes.items()))
        if sim.cores:
            print_(f"{len(sim.cores)} cores: " + ", ".join(f"core {c.core} {c.instructions:,} instructions, "
                                                           f"{c.cycles:,} cycles busy" for c in sim.cores)
                   + "; cycles above: the critical path")
        if sim.energy is not None:
            print_(f"{sim.energy.uj:,.2f} µJ per inference on platform {markup(sim.platform)} (energy model: "
                   "docs/energy.md)" + _accel_energy_note(sim.energy))


def _accel_energy_note(spent: Energy) -> str:
    """What the accelerator's share of the energy counts: its MACs, SRAM accesses and DMA bytes, or its MACs
    only when its cost model reports no traffic."""
    if spent.accel_traffic is None:
        return ""
    if not spent.accel_traffic:
        return (f"; the accelerator's {spent.accel_pj / 1e6:,.2f} µJ count its MACs only: its cost model "
                "reports no SRAM or DMA traffic")
    parts = spent.accel_parts_pj
    return (f"; the accelerator's {spent.accel_pj / 1e6:,.2f} µJ: MACs {parts.get('mac', 0.0) / 1e6:,.2f}, "
            f"SRAM {parts.get('sram', 0.0) / 1e6:,.2f}, DMA {parts.get('dma', 0.0) / 1e6:,.2f}")


def stream_verdicts(report: StreamReport) -> list[str]:
    """Two lines: every call against the reference, and against TFLite Micro (calls counted from 0)."""
    calls = report.calls
    n = len(calls)
    head = f"{n} call{'' if n == 1 else 's'}"
    k = report.first_mismatch
    if k is None:
        lines = [f"{head}: outputs vs reference interpreter [green]bit-exact on every call[/green]"]
    else:
        bad = sum(c.mismatches > 0 for c in calls)
        lines = [f"{head}: outputs vs reference interpreter [red]differ first on call {k}[/red] ({calls[k].mismatches} "
                 f"values there; {bad} of {n} calls differ, {report.mismatches} values in all)"]
    summary = report.tflite_micro
    if summary is None:
        return lines
    k = report.first_tflm_difference
    if not summary.ran:
        lines.append(f"{head}: outputs vs TFLite Micro: {markup(summary.describe())}")
    elif k is None:
        lines.append(f"{head}: outputs vs TFLite Micro [green]identical on every call[/green]")
    else:
        matches = [c.tflite_micro for c in calls if c.tflite_micro is not None]
        differ = sum(not m.identical for m in matches)
        agree = "all within the bound" if all(m.agrees for m in matches) else "[red]not all within the bound[/red]"
        first = calls[k].tflite_micro
        assert first is not None
        lines.append(f"{head}: outputs vs TFLite Micro [yellow]first differ on call {k}[/yellow]: "
                     f"{markup(first.describe())}; {differ} of {n} calls differ, {agree}")
    return lines


def accuracy_change(narrow: dict, wide: dict) -> str:
    """`mote quantize --weight-bits`'s line: the float model's outputs against the narrow weights' and the 8-bit
    weights'."""
    def figures(r: dict) -> str:
        top1 = f", top-1 agreement {r['top1_agreement']:.1%}" if "top1_agreement" in r else ""
        return (f"max abs diff {r['max_abs_diff']:.4g}, mean abs diff {r['mean_abs_diff']:.4g}{top1}, "
                f"{r['weight_bytes']:,} weight bytes")
    return (f"against the float model: {narrow['weight_bits']}-bit weights {figures(narrow)}; "
            f"8-bit weights {figures(wide)}")
