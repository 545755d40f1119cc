"""Why the arena has the size it has: which kernels take scratch in it, how much, and what the same
model needs with the other kernel family (the VNNI convolutions, for one, need a padded copy of their
input plane, so a host run can report a larger arena than `mote compile` with the default kernels)."""

from __future__ import annotations

from typing import Any

from mote.codegen.compile import CompiledModel
from mote.ops.registry import Core, Kernel, kernel_named


def _why(func: str) -> str:
    """What the scratch of kernel `func` holds, as its record says (a control-flow layer's: its subgraphs')."""
    if func.startswith("subgraph"):
        return "the frame of the subgraphs it calls"
    kernel = kernel_named(func)
    return kernel.scratch_why if kernel else Kernel.scratch_why


def _baseline(core: Core) -> Core:
    """The family to compare with: the portable vector kernels, or for those, the scalar ones."""
    return Core.SCALAR if core is Core.VECTOR else Core.VECTOR


def arena_notes(compiled: CompiledModel) -> dict[str, Any]:
    """JSON-ready: the kernel family, every scratch buffer (layer, kernel, bytes, why), and, when there
    is scratch, the arena the baseline family would need."""
    scratch = [{"layer": layer.index, "kernel": layer.kernel, "bytes": layer.scratch_bytes,
                "why": _why(layer.kernel)}
               for layer in compiled.layers if layer.scratch_bytes]
    notes: dict[str, Any] = {"kernels": compiled.core.value, "arena_bytes": compiled.plan.size,
                             "scratch_bytes": sum(s["bytes"] for s in scratch), "scratch": scratch}
    if scratch:
        other = _baseline(compiled.core)
        notes["baseline"] = {"kernels": other.value, "arena_bytes": compiled.for_core(other).plan.size}
    return notes


def describe(notes: dict[str, Any]) -> str:
    """One line: 'arena 28,800 B with the vnni kernels: 12,800 B scratch for mote_conv_vnni_s8 (...);
    16,000 B with --kernels vector'."""
    text = f"arena {notes['arena_bytes']:,} B with the {notes['kernels']} kernels"
    if not notes["scratch"]:
        return text + ", no kernel scratch"
    by_kernel: dict[str, list[dict[str, Any]]] = {}
    for s in notes["scratch"]:
        by_kernel.setdefault(s["kernel"], []).append(s)
    parts = []
    for kernel, items in by_kernel.items():
        largest = max(s["bytes"] for s in items)
        shown = ",".join(str(s["layer"]) for s in items[:6]) + (",…" if len(items) > 6 else "")
        layers = "layer" + ("s " if len(items) > 1 else " ") + shown
        parts.append(f"up to {largest:,} B scratch for {kernel} ({layers}: {items[0]['why']})")
    baseline = notes["baseline"]
    same = " (the same)" if baseline["arena_bytes"] == notes["arena_bytes"] else ""
    return (f"{text}: {'; '.join(parts)}; {baseline['arena_bytes']:,} B with --kernels {baseline['kernels']}"
            f"{same}")
