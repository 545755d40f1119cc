"""The page of `mote run --html` / `mote profile --html`: the partitioned graph (what ran where and
why), per-layer bars (instructions, cycles, accelerator cycles, energy) and the arena's occupancy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mote.accel.partition import partition
from mote.codegen.compile import CompiledModel
from mote.pipeline import RunReport
from mote.report_html.arena import occupancy, peak
from mote.report_html.page import Figure, document, esc, figures_html, num, section, summary_list, table, write_page
from mote.report_html.svg import Bar, bar_chart

# (key in a layer's JSON, figure title, unit, digits)
METRICS = (("instructions", "Instructions per layer", "instructions", 0),
           ("cycles", "CPU cycles per layer", "cycles", 0),
           ("accel_cycles", "Accelerator cycles per layer", "cycles", 0),
           ("energy_uj", "Energy per layer (µJ)", "µJ", 2))


ACCEL_COLOR = "#3f9a5a"  # bars of layers the accelerator ran


def _bar(layer: dict[str, Any], value: float | None) -> Bar:
    return Bar(layer["name"], value, prefix=f"#{layer['index']} {layer['op']}",
               color=ACCEL_COLOR if layer["runs_on"] != "cpu" else "")


def accelerator_reasons(compiled: CompiledModel) -> dict[int, str]:
    """For each CPU layer of a model compiled with an accelerator: why the accelerator declined it (its
    patterns' failed predicates, or that none runs the op), by layer index."""
    accel = compiled.accelerator
    if accel is None:
        return {}
    try:
        decisions = partition(compiled.graph, accel)
    except Exception:  # noqa: BLE001 - an accelerator's own predicates: the page then shows no reason
        return {}
    return {i: d.why_not() for i, d in enumerate(decisions) if not d.offloaded and d.node.op != "accel"}


def _where(layer: dict[str, Any], compiled: CompiledModel, reasons: dict[int, str]) -> tuple[str, str]:
    """(runs on, why) for one layer."""
    node = compiled.graph.nodes[layer["index"]]
    if layer["runs_on"] != "cpu":
        return "accelerator " + layer["runs_on"], f"pattern {node.attrs.get('pattern', '?')}"
    if layer["kernel"] == "in place":
        return "cpu", "in place: no code runs"
    if compiled.accelerator is None:
        return "cpu", "no accelerator"
    original = node.attrs.get("original")
    if node.op == "requantize_s32" and original is not None:
        return "cpu", (f"the CPU's part of the offloaded {original.op}: the accelerator's pattern stops at the "
                       "int32 accumulator, the CPU requantizes")
    if node.op == "layout_transform":
        return "cpu", (f"added by the compiler: moves data between NHWC and the accelerator's layout "
                       f"({compiled.accelerator.activation_layout})")
    return "cpu", "accelerator declined: " + reasons.get(layer["index"], "not offered (added by the compiler)")


def _partition_section(data: dict[str, Any], compiled: CompiledModel) -> str:
    reasons = accelerator_reasons(compiled)
    declined = {layer.index: layer.declined for layer in compiled.layers}
    rows, classes = [], []
    for layer in data["layers"]:
        where, why = _where(layer, compiled, reasons)
        kernel_notes = "; ".join(f"not {func}: {reason}" for func, reason in declined.get(layer["index"], ()))
        rows.append((layer["index"], layer["name"], layer["op"], layer["kernel"], where, why, kernel_notes or "-",
                     num(layer["macs"])))
        classes.append("" if layer["runs_on"] == "cpu" else "accel")
    offloaded = sum(layer["runs_on"] != "cpu" for layer in data["layers"])
    head = (f"{offloaded} of {len(data['layers'])} layers ran on the accelerator "
            f"{compiled.accelerator.label}." if compiled.accelerator is not None
            else f"No accelerator: all {len(data['layers'])} layers ran on the CPU.")
    return section("Partitioned graph: what ran where and why",
                   f"<p>{esc(head)}</p>" + table(("#", "layer", "op", "kernel", "ran on", "why",
                                                  "kernels declined (compile --explain)", "MACs"),
                                                 rows, numeric=(0, 7), row_classes=classes))


def layer_figures(data: dict[str, Any]) -> list[Figure]:
    """One bar chart per measured figure; none when the target does not measure layers."""
    measured = [layer for layer in data["layers"] if "instructions" in layer]
    figures = []
    for key, title, unit, digits in METRICS:
        values = [layer.get(key) for layer in measured]
        if not measured or all(v is None for v in values) or (key == "accel_cycles" and not any(values)):
            continue
        total = sum(v for v in values if v is not None)
        bars = [_bar(layer, layer.get(key)) for layer in measured]
        accel = any(layer["runs_on"] != "cpu" for layer in measured)
        figures.append(Figure(title, bar_chart(title, bars, unit, digits=digits),
                              caption=f"total {num(total, digits)} {unit}"
                                      + ("; green: layers the accelerator ran" if accel else "")))
    return figures


def _layers_section(data: dict[str, Any], target: str) -> str:
    figures = layer_figures(data)
    if not figures:
        return section("Per-layer figures", f'<p class="note">target {esc(target)} does not measure each layer: '
                                            "use --target rv32 (or a Cortex-M target) for per-layer bars.</p>")
    return section("Per-layer figures", figures_html(figures))


def arena_figure(compiled: CompiledModel) -> tuple[Figure, str]:
    """The bytes live at each layer against the arena's size, and a table of the live buffers."""
    steps = occupancy(compiled)
    top = peak(steps)
    size = compiled.plan.size
    bars = [Bar(s.layer, s.live_bytes, s is top, prefix=f"#{s.index}") for s in steps]
    title = "Arena occupancy: bytes live per layer"
    peak_text = f"peak {num(top.live_bytes)} B live at layer #{top.index} {top.layer}" if top else "no layers"
    figure = Figure(title, bar_chart(title, bars, "B", marker=(size, f"arena {num(size)} B")),
                    caption=f"{peak_text}; arena {num(size)} B (disjoint-buffer bound {num(compiled.plan.lower_bound)} "
                            "B); the peak is highlighted")
    rows = [(s.index, s.layer, num(s.live_bytes), num(s.high_water),
             ", ".join(f"{b.name}{' (scratch)' if b.scratch else ''} @{b.offset} {b.size} B" for b in s.live))
            for s in steps]
    details = ("<details><summary>Live buffers at each layer (offset, bytes)</summary>"
               + table(("#", "layer", "bytes live", "highest byte used", "buffers"), rows, numeric=(0, 2, 3))
               + "</details>")
    return figure, details


def _summary(report: RunReport, data: dict[str, Any]) -> str:
    items = [("target", str(report.target)), ("outputs vs reference", "bit-exact" if report.bit_exact
                                              else f"{report.mismatches} mismatches"),
             ("MACs", num(data["macs"])), ("weights", f"{num(data['weights_bytes'])} B"),
             ("arena", f"{num(data['arena_bytes'])} B")]
    for key, label in (("instructions", "instructions"), ("cycles", "CPU cycles"),
                       ("accel_cycles", "accelerator cycles"), ("total_cycles", "total cycles"),
                       ("energy_uj", "energy (µJ)"), ("ram_bytes", "RAM (B)"), ("rom_bytes", "ROM (B)")):
        if data.get(key) is not None:
            items.append((label, num(data[key])))
    if data.get("accelerator"):
        items.append(("accelerator", str(data["accelerator"])))
    return summary_list(items) + "".join(f'<p class="note">note: {esc(n)}</p>' for n in data.get("notes", ()))


def render_run_page(report: RunReport, command: str, extra: Sequence[Figure] = ()) -> str:
    data = report.to_json()
    compiled = report.compiled
    arena, details = arena_figure(compiled)
    sections = [section("Summary", _summary(report, data)), _partition_section(data, compiled),
                _layers_section(data, report.target), section("Arena", figures_html([arena]) + details)]
    if extra:
        sections.append(section("More figures", figures_html(extra)))
    name = Path(report.model).name
    return document(f"mote {command}: {name}", f"{report.model} on {report.target}", sections)


def write_run_page(path: Path, report: RunReport, command: str = "run", extra: Sequence[Figure] = ()) -> None:
    """The page of one run (`command`: run or profile), with `extra` figures appended."""
    write_page(path, render_run_page(report, command, extra))
