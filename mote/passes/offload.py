"""Offload: replace every node the accelerator accepts with an `accel` node (and, where its pattern
stops at the int32 accumulator, a CPU `requantize_s32` node that finishes the op).

Activations in the accelerator's layout (when it is not NHWC) are transposed once where a region
of adjacent accelerator nodes starts and once where its results leave it, never in between: the
CPU's padding and requantization between two accelerator jobs work on the accelerator's layout,
and a requantization whose result leaves the accelerator writes NHWC itself.

Then the accelerator plans the offloaded graph once (`plan`) and lowers each `accel` node with that
plan (`lower`); each node keeps its job and plain names (mote.accel.op), so whatever reads the graph
afterwards (code generation, the reference, `mote explore`) needs no accelerator object.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from mote.accel import op as _accel_op  # noqa: F401 - registers the "accel" op the result uses
from mote.accel.interface import STAGES, Accelerator, Job, Pattern
from mote.accel.partition import Decision, partition
from mote.errors import AcceleratorError, MoteError
from mote.ir import DType, Graph, Node, Tensor
from mote.ops import OPS
from mote.ops.requantize_s32 import AXES

# NHWC -> accelerator layout, as a permutation of axes.
PERMUTATIONS = {"NHWC": (0, 1, 2, 3), "NCHW": (0, 3, 1, 2)}


def _permute(t: Tensor, perm: tuple[int, ...], suffix: str) -> Tensor:
    return Tensor(f"{t.name}{suffix}", tuple(t.shape[i] for i in perm), t.dtype, t.quant)


def offload(graph: Graph, accel: Accelerator, decisions: list[Decision] | None = None) -> Graph:
    """The graph with every node the accelerator accepts replaced by an `accel` node, then planned and
    lowered: each `accel` node carries its job and names (mote.accel.op), no live objects."""
    decisions = decisions if decisions is not None else partition(graph, accel)
    builder = _Offload(graph, accel, decisions)
    result = builder.run()
    plan = accel.plan(result)
    for node, pattern in builder.offloaded:
        node.attrs["job"] = _lower(accel, node, pattern, plan)
    return result


def _lower(accel: Accelerator, node: Node, pattern: Pattern, plan: Any) -> Job:
    """The accelerator's job for an `accel` node; its failures are one-line errors naming the node."""
    try:
        job = accel.lower(node.attrs["original"], pattern, node.inputs, node.outputs, plan)
    except MoteError:
        raise
    except Exception as e:  # noqa: BLE001 - the author's code; told in one line with where it failed
        raise AcceleratorError(f"accelerator {accel.name}: lower() raised {type(e).__name__} "
                               f"({' '.join(str(e).split())}) for {node.attrs['original'].op} node {node.name!r} "
                               f"(pattern {pattern.name!r})") from None
    if not isinstance(job, Job):
        raise AcceleratorError(f"accelerator {accel.name}: lower() returned {type(job).__name__} for node "
                               f"{node.name!r}; return a mote.accel.Job")
    return job


class _Offload:
    """One pass over the partitioned graph, building the offloaded graph's node list."""

    def __init__(self, graph: Graph, accel: Accelerator, decisions: list[Decision]) -> None:
        self.graph, self.accel, self.decisions = graph, accel, decisions
        perm = PERMUTATIONS.get(accel.activation_layout)
        if perm is None:
            raise ValueError(f"accelerator {accel.name}: unsupported activation layout {accel.activation_layout!r}")
        self.perm = perm
        self.transposing = perm != PERMUTATIONS["NHWC"]
        self.suffix = f" ({accel.activation_layout})"
        self.in_accel_layout: dict[Tensor, Tensor] = {}  # NHWC tensor -> its accelerator-layout twin
        self.nodes: list[Node] = []
        self.twin_only: dict[Tensor, Tensor] = {}  # NHWC tensors that so far exist only as their twin
        self.wants_nhwc = _wanted_in_nhwc(graph, decisions)
        self.readers = Counter(t for n in graph.nodes for t in n.inputs if t is not None)
        self.readers.update(t for t in graph.outputs)
        self.offloaded: list[tuple[Node, Pattern]] = []  # the accel nodes, in order, to lower once planned

    def run(self) -> Graph:
        for d in self.decisions:
            if d.offloaded:
                self.offload(d)
            elif self.transposing and _layout_agnostic(d.node) and all(
                    t in self.in_accel_layout for t in _activations(d.node)):
                self.in_accel_layout_copy(d.node)
            else:  # CPU nodes read NHWC
                for t in _activations(d.node):
                    self.nhwc_view(t)
                self.nodes.append(d.node)
        for t in self.graph.outputs:
            self.nhwc_view(t)
        return Graph(self.graph.name, self.graph.inputs, self.graph.outputs, self.nodes, notes=self.graph.notes)

    def in_accel_layout_copy(self, node: Node) -> None:
        """An elementwise CPU node whose inputs are all in the accelerator's layout runs there too, so
        that data between accelerator jobs (e.g. a residual add) makes no round trip through NHWC."""
        out = node.outputs[0]
        twin = _permute(out, self.perm, self.suffix)
        inputs = [t if t is None or t.is_const else self.in_accel_layout[t] for t in node.inputs]
        self.nodes.append(Node(node.op, node.name, inputs, [twin], node.attrs, node.index))
        self.in_accel_layout[out] = twin
        self.twin_only[out] = out

    def accel_view(self, t: Tensor | None) -> Tensor | None:
        """`t` in the accelerator's layout (transposed here, once, if no twin exists yet)."""
        if t is None or t.is_const or not self.transposing or len(t.shape) != 4:
            return t
        if t not in self.in_accel_layout:
            twin = _permute(t, self.perm, self.suffix)
            self.nodes.append(self.transform(t, twin, self.perm))
            self.in_accel_layout[t] = twin
        return self.in_accel_layout[t]

    def nhwc_view(self, t: Tensor) -> None:
        """Make `t` exist in NHWC (transposed back here, once, if only its twin does)."""
        if t in self.twin_only:
            del self.twin_only[t]
            inverse = tuple(self.perm.index(i) for i in range(4))
            self.nodes.append(self.transform(self.in_accel_layout[t], t, inverse))

    @staticmethod
    def transform(source: Tensor, target: Tensor, perm: tuple[int, ...]) -> Node:
        if _same_order(source.shape, perm):  # e.g. one channel: NHWC and NCHW hold the same bytes
            return Node("reshape", target.name, [source], [target])
        return Node("layout_transform", target.name, [source], [target], {"perm": perm})

    def offload(self, d: Decision) -> None:
        assert d.pattern is not None
        accel, node = self.accel, d.node
        if d.pattern.pad_input:
            node = self.pad_explicitly(node)
        stride = tuple(node.attrs.get("stride", (1, 1)))
        computed = node  # what the accelerator computes
        if d.pattern.cpu_stride and stride != (1, 1):
            computed = _every_position(node)
        inputs = [self.accel_view(t) for t in computed.inputs]
        out = node.outputs[0]
        split = not d.pattern.covers_all()
        result = Tensor(f"{out.name} (int32)", computed.outputs[0].shape, DType.INT32) if split else out
        transposed = self.transposing and len(result.shape) == 4
        accel_out = _permute(result, self.perm, self.suffix) if transposed else result
        stages = d.pattern.stages or STAGES.get(node.op, ())
        attrs = {"accelerator": accel.name, "pattern": d.pattern.name, "stages": stages, "original": computed,
                 "model_node": d.node, "perm": self.perm if self.transposing else None,
                 "address_registers": tuple(accel.address_registers)}
        self.nodes.append(Node("accel", node.name, inputs, [accel_out], attrs, node.index))
        self.offloaded.append((self.nodes[-1], d.pattern))
        if split:  # the CPU requantizes from the accelerator's layout, into the layout out's readers want
            finished = out
            if transposed and out not in self.wants_nhwc:
                finished = _permute(out, self.perm, self.suffix)
                self.in_accel_layout[out] = finished
                self.twin_only[out] = out
            layouts = (accel.activation_layout if transposed else "NHWC",
                       accel.activation_layout if finished is not out else "NHWC")
            self.nodes.append(Node("requantize_s32", out.name, [accel_out], [finished],
                                   {"original": node, "stride": stride, "layouts": layouts}, node.index))
        elif transposed:
            self.in_accel_layout[result] = accel_out
            self.twin_only[result] = result

    def pad_explicitly(self, node: Node) -> Node:
        """For an accelerator without padding: the input padded with its zero point (which contributes
        nothing to the sums), then the same op with VALID padding, which computes the same values.
        The padding is on the accelerator's layout of the input: a border the requantization that
        produces the input writes around it when this node is its only reader, else a CPU pad node."""
        x = node.inputs[0]
        if node.attrs.get("padding") != "SAME" or x is None:
            return node
        pads = _same_padding(node)
        if not any(before or after for before, after in pads):
            return replace(node, attrs={**node.attrs, "padding": "VALID"})
        shape = tuple(d + before + after for d, (before, after) in zip(x.shape, pads))
        padded = Tensor(f"{x.name} (padded)", shape, x.dtype, x.quant)
        if self.transposing and x not in self.in_accel_layout and not _same_order(x.shape, self.perm):
            target = _permute(padded, self.perm, self.suffix)  # transpose and pad in one pass
            self.in_accel_layout[padded] = target
            attrs = {"perm": self.perm, "pads": tuple(tuple(pads[i]) for i in self.perm)}
            self.nodes.append(Node("layout_transform", target.name, [x], [target], attrs, node.index))
            return replace(node, inputs=[padded, *node.inputs[1:]], attrs={**node.attrs, "padding": "VALID"})
        source, target = self.accel_view(x), padded
        if source is not x:  # pad the accelerator's layout
            pads = [pads[i] for i in self.perm]
            target = _permute(padded, self.perm, self.suffix)
            self.in_accel_layout[padded] = target
        producer = self.nodes[-1] if self.nodes else None
        if (producer is not None and producer.op == "requantize_s32" and producer.outputs[0] is source
                and self.readers[x] == 1):
            rows, cols, _ = AXES[self.accel.activation_layout if source is not x else "NHWC"]
            producer.outputs = [target]
            producer.attrs["border"] = (tuple(pads[rows]), tuple(pads[cols]))
        else:
            paddings = Tensor(f"{x.name} paddings", (4, 2), DType.INT32, data=np.array(pads, dtype=np.int32))
            self.nodes.append(Node("pad", target.name, [source, paddings], [target], {}, node.index))
        return replace(node, inputs=[padded, *node.inputs[1:]], attrs={**node.attrs, "padding": "VALID"})


def _same_order(shape: tuple[int, ...], perm: tuple[int, ...]) -> bool:
    """Whether permuting the axes leaves the elements in the same order (only axes of size 1 move)."""
    return [a for a in perm if shape[a] != 1] == [a for a in range(len(shape)) if shape[a] != 1]


def _same_padding(node: Node) -> list[list[int]]:
    """SAME padding of the node's input as [before, after] per NHWC axis."""
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    pads = [[0, 0]]
    for axis in (1, 2):
        stride = node.attrs["stride"][axis - 1]
        dilation = node.attrs.get("dilation", (1, 1))[axis - 1]
        effective = (node.inputs[1].shape[axis] - 1) * dilation + 1 if node.inputs[1] is not None else 1
        total = max((out.shape[axis] - 1) * stride + effective - x.shape[axis], 0)
        pads.append([total // 2, total - total // 2])
    pads.append([0, 0])
    return pads


def _every_position(node: Node) -> Node:
    """The same VALID op at stride 1, for an accelerator that has no stride: it computes every
    position and the CPU's requantization keeps every stride-th one (output shape from the op rule)."""
    full = replace(node, attrs={**node.attrs, "stride": (1, 1)})
    (shape,) = OPS[node.op].shape(full)
    out = node.outputs[0]
    return replace(full, outputs=[Tensor(f"{out.name} (every position)", tuple(shape), out.dtype, out.quant)])


# CPU ops that work element by element: with all inputs and the output of one shape, any layout will do.
ELEMENTWISE = ("add", "sub", "mul", "relu", "relu6", "logistic", "tanh")


def _activations(node: Node) -> list[Tensor]:
    return [t for t in node.inputs if t is not None and not t.is_const]


def _layout_agnostic(node: Node) -> bool:
    shape = node.outputs[0].shape
    return (node.op in ELEMENTWISE and len(shape) == 4 and all(t.shape == shape for t in _activations(node))
            and all(t.size == 1 for t in node.inputs if t is not None and t.is_const))  # constants in NHWC order


def _wanted_in_nhwc(graph: Graph, decisions: list[Decision]) -> set[Tensor]:
    """Tensors that the graph returns or that a CPU node reads in NHWC (not an elementwise one)."""
    wanted = {t for t in graph.outputs}
    for d in decisions:
        if not d.offloaded and not _layout_agnostic(d.node):
            wanted |= {t for t in _activations(d.node)}
    return wanted
