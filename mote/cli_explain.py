"""`mote compile --explain`: per layer, the kernel chosen and why each earlier kernel of its op's table
that serves the core declined (mote.ops.registry.choose_kernel)."""

from __future__ import annotations

from typing import Any

from mote.codegen.compile import CompiledModel


def explain_json(compiled: CompiledModel) -> list[dict[str, Any]]:
    """JSON-ready: one entry per layer, {index, name, op, kernel, declined: [{kernel, reason}]}."""
    return [{"index": layer.index, "name": layer.name, "op": layer.op, "kernel": layer.kernel,
             "declined": [{"kernel": func, "reason": reason} for func, reason in layer.declined]}
            for layer in compiled.layers]


def explain_lines(compiled: CompiledModel) -> list[str]:
    """One line per layer, the declined kernels indented below it."""
    lines = [f"kernels for a {compiled.core.value} core:"]
    for layer in compiled.layers:
        where = "" if layer.runs_on == "cpu" else f" (on {layer.runs_on})"
        lines.append(f"  layer {layer.index} {layer.op} {layer.name!r}: {layer.kernel}{where}")
        lines += [f"      not {func}: {reason}" for func, reason in layer.declined]
    return lines
