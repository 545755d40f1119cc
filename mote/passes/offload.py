"""Offload: replace every node the accelerator accepts with an `accel` node (and, where its pattern
stops at the int32 accumulator, a CPU `requantize_s32` node that finishes the op).

Activations in the accelerator's layout (when it is not NHWC) are transposed once where a region
of adjacent accelerator nodes starts and once where its results leave it, never in between.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.accel.interface import Accelerator
from mote.accel.partition import Decision, partition
from mote.ir import DType, Graph, Node, Tensor
from mote.ops import OPS

# NHWC -> accelerator layout, as a permutation of axes.
PERMUTATIONS = {"NHWC": (0, 1, 2, 3), "NCHW": (0, 3, 1, 2)}


def _permute(t: Tensor, perm: tuple[int, ...], suffix: str) -> Tensor:
    return Tensor(f"{t.name}{suffix}", tuple(t.shape[i] for i in perm), t.dtype, t.quant)


def offload(graph: Graph, accel: Accelerator, decisions: list[Decision] | None = None) -> Graph:
    decisions = decisions if decisions is not None else partition(graph, accel)
    perm = PERMUTATIONS.get(accel.activation_layout)
    if perm is None:
        raise ValueError(f"accelerator {accel.name}: unsupported activation layout {accel.activation_layout!r}")
    inverse = tuple(perm.index(i) for i in range(4))
    transposing = perm != PERMUTATIONS["NHWC"]
    in_accel_layout: dict[int, Tensor] = {}  # id(NHWC tensor) -> its accelerator-layout twin
    nodes: list[Node] = []
    consumers_outside = _consumed_on_cpu(graph, decisions)

    def accel_view(t: Tensor | None) -> Tensor | None:
        if t is None or t.is_const or not transposing or len(t.shape) != 4:
            return t
        if id(t) not in in_accel_layout:
            twin = _permute(t, perm, f" ({accel.activation_layout})")
            nodes.append(Node("layout_transform", twin.name, [t], [twin], {"perm": perm}))
            in_accel_layout[id(t)] = twin
        return in_accel_layout[id(t)]

    for d in decisions:
        node = d.node
        if not d.offloaded:
            nodes.append(node)  # CPU nodes read NHWC tensors: results leaving a region are transposed back
            continue
        assert d.pattern is not None
        if d.pattern.pad_input:
            node = _pad_explicitly(node, nodes)
        stride = tuple(node.attrs.get("stride", (1, 1)))
        computed = node  # what the accelerator computes
        if d.pattern.cpu_stride and stride != (1, 1):
            computed = _every_position(node)
        inputs = [accel_view(t) for t in computed.inputs]
        out = node.outputs[0]
        split = not d.pattern.covers_all()
        result = Tensor(f"{out.name} (int32)", computed.outputs[0].shape, DType.INT32) if split else out
        if transposing and len(result.shape) == 4:
            accel_out = _permute(result, perm, f" ({accel.activation_layout})")
        else:
            accel_out = result
        attrs = {"accelerator": accel, "pattern": d.pattern, "original": computed, "model_node": d.node,
                 "perm": perm if transposing else None}
        nodes.append(Node("accel", node.name, inputs, [accel_out], attrs, node.index))
        if accel_out is not result:
            in_accel_layout[id(result)] = accel_out
            if split or id(out) in consumers_outside:
                nodes.append(Node("layout_transform", result.name, [accel_out], [result], {"perm": inverse}))
        if split:
            nodes.append(Node("requantize_s32", out.name, [result], [out], {"original": node, "stride": stride},
                              node.index))
    result = Graph(graph.name, graph.inputs, graph.outputs, nodes)
    accel.plan(result)
    return result


def _pad_explicitly(node: Node, nodes: list[Node]) -> Node:
    """For an accelerator without padding: a CPU pad node (the input's zero point, which contributes
    nothing to the sums) followed by the same op with VALID padding, which computes the same values."""
    x = node.inputs[0]
    if node.attrs.get("padding") != "SAME" or x is None:
        return node
    out = node.outputs[0]
    pads = [[0, 0]]
    for axis in (1, 2):
        stride = node.attrs["stride"][axis - 1]
        dilation = node.attrs.get("dilation", (1, 1))[axis - 1]
        effective = (node.inputs[1].shape[axis] - 1) * dilation + 1 if node.inputs[1] is not None else 1
        total = max((out.shape[axis] - 1) * stride + effective - x.shape[axis], 0)
        pads.append([total // 2, total - total // 2])
    pads.append([0, 0])
    if not any(before or after for before, after in pads):
        return replace(node, attrs={**node.attrs, "padding": "VALID"})
    paddings = Tensor(f"{x.name} paddings", (4, 2), DType.INT32, data=np.array(pads, dtype=np.int32))
    shape = tuple(d + before + after for d, (before, after) in zip(x.shape, pads))
    padded = Tensor(f"{x.name} (padded)", shape, x.dtype, x.quant)
    nodes.append(Node("pad", padded.name, [x, paddings], [padded], {}, node.index))
    return replace(node, inputs=[padded, *node.inputs[1:]], attrs={**node.attrs, "padding": "VALID"})


def _every_position(node: Node) -> Node:
    """The same VALID op at stride 1, for an accelerator that has no stride: it computes every
    position and the CPU's requantization keeps every stride-th one (output shape from the op rule)."""
    full = replace(node, attrs={**node.attrs, "stride": (1, 1)})
    (shape,) = OPS[node.op].shape(full)
    out = node.outputs[0]
    return replace(full, outputs=[Tensor(f"{out.name} (every position)", tuple(shape), out.dtype, out.quant)])


def _consumed_on_cpu(graph: Graph, decisions: list[Decision]) -> set[int]:
    """Tensors that a CPU node reads or the graph returns: these must exist in NHWC."""
    used = {id(t) for t in graph.outputs}
    for d in decisions:
        if not d.offloaded:
            used |= {id(t) for t in d.node.inputs if t is not None}
    return used
