"""What the `mote` command says about an attached accelerator: its cycles beside the CPU's (run and
profile), each layer's share of the total, a model of which nothing was offloaded (and why), and the RAM
the accelerator's layouts add to the arena. Every model-derived string goes through mote.terminal.markup."""

from __future__ import annotations

from typing import Any

from mote.accel.partition import partition
from mote.pipeline import RunReport
from mote.targets.rv32 import SimFigures
from mote.terminal import markup

KB = 1000  # decimal kilobytes, beside the byte counts the summary prints


def accelerator_of(report: RunReport) -> Any:
    """The compiled model's accelerator on a virtual-platform run, else None."""
    return report.compiled.accelerator if isinstance(report.figures, SimFigures) else None


def total_cycles(layer: dict[str, Any]) -> int:
    """A layer's CPU cycles plus its accelerator's (0 unless timed)."""
    return layer["cycles"] + layer.get("accel_cycles", 0)


def cycles_lines(report: RunReport) -> list[str]:
    """The run's accelerator and total cycles, or why the accelerator's cycles are not counted."""
    accel = accelerator_of(report)
    if accel is None:
        return []
    assert isinstance(report.figures, SimFigures)
    sim, name = report.figures.sim, markup(accel.name)
    if sim.accel_jobs == 0:
        return []
    if not accel.timed:
        return [f"accelerator {name}: {sim.accel_jobs:,} jobs; zero-cycle mode, so its cycles are not counted "
                f"(add timed=1 to count its cost model's cycles)"]
    share = sim.accel_cycles / sim.total_cycles if sim.total_cycles else 0.0
    return [f"accelerator {name}: {sim.accel_cycles:,} cycles in {sim.accel_jobs:,} jobs; total {sim.total_cycles:,} "
            f"cycles = CPU {sim.cycles:,} ({1 - share:.1%}) + accelerator {sim.accel_cycles:,} ({share:.1%})"]


def nothing_offloaded(report: RunReport) -> str | None:
    """One line when an accelerator is attached and no layer runs on it, with the reason."""
    accel = report.compiled.accelerator
    if accel is None or any(layer.runs_on != "cpu" for layer in report.compiled.layers):
        return None
    decisions = partition(report.compiled.graph, accel)
    ops = sorted({p.op for p in accel.patterns()})
    rejected = [d for d in decisions if d.rejected]
    if rejected:
        why = f"{len(rejected)} layers of its ops were rejected (first: {rejected[0].node.op}: {rejected[0].why_not()})"
    else:
        model_ops = sorted({d.node.op for d in decisions})
        why = f"no layer matches its patterns (it runs {', '.join(ops)}; the model has {', '.join(model_ops)})"
    return markup(f"no layer offloaded to {accel.name}: {why}")


def ram_line(report: RunReport) -> str | None:
    """The RAM the accelerator's layouts add: the run's static RAM beside the same with the CPU-only arena."""
    accel, cpu_arena = accelerator_of(report), report.cpu_arena_bytes
    if accel is None or cpu_arena is None:
        return None
    assert isinstance(report.figures, SimFigures)
    ram, grown = report.figures.sim.ram_bytes, report.compiled.plan.size - cpu_arena
    if grown <= 0:
        return None
    return markup(f"RAM {_kb(ram)} KB ({_kb(ram - grown)} KB without {accel.name}'s layouts: +{_kb(grown)} KB "
                  "of arena for its layouts and the transposes around its layers)")


def _kb(n: int) -> str:
    """Decimal kilobytes: whole ones from 100 KB, one decimal below."""
    return f"{n / KB:,.0f}" if n >= 100 * KB else f"{n / KB:,.1f}"


def weights_line(report: RunReport) -> str | None:
    """The layers whose weights are narrower than 8 bits: in which of the accelerator's modes, their packed bytes,
    and those the CPU runs (no mode of that width)."""
    accel = report.compiled.accelerator
    if accel is None:
        return None
    modes: dict[int, list[int]] = {}
    cpu = 0
    for node in report.compiled.graph.nodes:
        if node.op == "accel":
            bits = int(node.attrs["job"].info.get("weight_bits", 8))
            if bits < 8:
                modes.setdefault(bits, []).append(int(node.attrs["job"].info.get("weight_bytes", 0)))
        elif any(t is not None and t.is_const and t.bits < 8 for t in node.inputs):
            cpu += 1
    if not modes and not cpu:
        return None
    parts = [f"{len(sizes)} layers in its int{bits} weight mode ({sum(sizes):,} bytes packed)"
             for bits, sizes in sorted(modes.items(), reverse=True)]
    if cpu:
        parts.append(f"{cpu} layers with sub-byte weights on the CPU (no mode of their width)")
    return markup(f"weights: {'; '.join(parts)}")


def summary_lines(report: RunReport) -> list[str]:
    """Every accelerator line of the summary, in order."""
    lines = cycles_lines(report)
    for line in (nothing_offloaded(report), ram_line(report), weights_line(report)):
        if line is not None:
            lines.append(line)
    return lines


def split_line(data: dict[str, Any], report: RunReport) -> str | None:
    """profile's CPU/accelerator split over the layers (timed accelerators only)."""
    accel = accelerator_of(report)
    if accel is None or not accel.timed:
        return None
    layers = [layer for layer in data["layers"] if "cycles" in layer]
    on_accel = sum(layer.get("accel_cycles", 0) for layer in layers)
    cpu = sum(layer["cycles"] for layer in layers)
    total = cpu + on_accel
    if not total:
        return None
    offloaded = sum(layer.get("accel_cycles", 0) > 0 for layer in layers)
    return markup(f"layers' cycles: CPU {cpu:,} ({cpu / total:.1%}), accelerator {accel.name} {on_accel:,} "
                  f"({on_accel / total:.1%}, in {offloaded} layers)")
