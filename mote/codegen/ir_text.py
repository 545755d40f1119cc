"""The text form of a compiled model: its graph (mote.ir.text) with what the compiler decided.

A header comment gives the arena's size (and the lower bound of the busiest step), the weights' bytes
and the kind of core the kernels were chosen for; every activation tensor gets `arena=offset+bytes`
(tensors that share a buffer in place show the same offset); every node's line ends with
`// <where it runs> <kernel>`, plus `scratch=offset+bytes` when its kernel has a scratch buffer:

    // arena 1152 B (lower bound 1152 B), weights 4242 B, kernels for scalar cores
    input %x: i8[1,8,8,3] q(0.5, -1) arena=0+192
    #0 conv2d "conv" (%x, %w, %b) -> %y: i8[1,8,8,4] q(0.25, 3) arena=192+256 {...}  // cpu mote_conv_s8
"""

from __future__ import annotations

from mote.codegen.compile import CompiledModel
from mote.ir import GraphNotes, Node


def compiled_notes(compiled: CompiledModel) -> GraphNotes:
    plan = compiled.plan
    notes = GraphNotes([f"arena {plan.size} B (lower bound {plan.lower_bound} B), weights "
                        f"{compiled.weights_bytes} B, kernels for {compiled.core.value} cores"])
    scratch: dict[Node, str] = {}
    for buf, offset in plan.offsets.items():
        for t in buf.tensors:
            notes.tensors[t] = f"arena={offset}+{buf.size}"
        if buf.scratch_of is not None:
            scratch[buf.scratch_of] = f" scratch={offset}+{buf.size}"
    for layer in compiled.layers:
        node = compiled.graph.nodes[layer.index]
        notes.nodes[node] = f"{layer.runs_on} {layer.kernel}{scratch.get(node, '')}"
    return notes


def dump_compiled(compiled: CompiledModel) -> str:
    """`mote compile --print-ir`: the graph as compiled (after offloading), with placement, kernels and arena."""
    return compiled.graph.dump(compiled_notes(compiled))
