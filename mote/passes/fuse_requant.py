"""fuse_requant: an integer-dialect convolution whose only reader is a RequantShift -> one conv2d_rqs layer.

The integer ONNX frontend makes each Conv, and each Gemm/MatMul with constant weights (a 1x1
convolution), a conv2d_s32 writing int32 accumulators, and its RequantShift a requant_shift reading
them back. Compiled as they are, every accumulator goes to memory and back through a second pass, and
conv2d_s32's kernel is a plain loop. This pass replaces each pair

    x -> conv2d_s32 -> acc (int32, read by nothing else, no graph output) [-> reshape] -> requant_shift -> y

(a Gemm's rows come back to its shape through the reshape, which then moves to the int8 side)

by conv2d_rqs (mote/ops/conv2d_rqs.py), which runs on the register-blocked kernel and requantizes
each accumulator with RequantShift's own formula in its output stage: the same bytes. Pairs the blocked
kernel does not take (grouped or depthwise convolutions, weights of -128, accumulators that may
leave int32, requantization not per output channel) are left as they are. The graph given is not
changed: a rewritten copy is returned (the same object when nothing matched).
"""

from __future__ import annotations

from dataclasses import replace

from mote.errors import MoteError
from mote.ir import DType, Graph, Node, Tensor
from mote.ops import conv2d_rqs, conv2d_s32, requant_shift


def _readers(graph: Graph) -> dict[int, list[Node]]:
    out: dict[int, list[Node]] = {}
    for node in graph.nodes:
        for t in node.inputs:
            if t is not None:
                out.setdefault(id(t), []).append(node)
    return out


def _fused(conv: Node, rqs: Node, reshape: Node | None) -> list[Node] | None:
    """The conv2d_rqs node for the pair (and the reshape after it), or None when the blocked kernel does not
    take it."""
    x, w = conv.inputs[0], conv.inputs[1]
    b = conv.inputs[2] if len(conv.inputs) > 2 else None
    y = rqs.outputs[0]
    if x is None or w is None or x.dtype is not DType.INT8 or y.dtype is not DType.INT8:
        return None
    acc = conv.outputs[0]
    rqs_in = Node(rqs.op, rqs.name, [acc, *rqs.inputs[1:]], [Tensor(y.name, acc.shape, y.dtype, y.quant)],
                  rqs.attrs)
    try:
        c, r = conv2d_s32.prepare(conv), requant_shift.prepare(rqs_in)
    except MoteError:
        return None
    if conv2d_rqs.why_not(c, r) is not None:
        return None
    attrs = {k: conv.attrs[k] for k in conv2d_rqs.CONV_ATTRS if k in conv.attrs}
    attrs.update({k: rqs.attrs[k] for k in conv2d_rqs.RQS_ATTRS})
    out = y if reshape is None else Tensor(f"{y.name}_rows", acc.shape, y.dtype, y.quant)
    fused = Node("conv2d_rqs", rqs.name, [x, w, b, rqs.inputs[1], rqs.inputs[2]], [out], attrs, index=conv.index)
    if reshape is None:
        return [fused]
    return [fused, Node(reshape.op, reshape.name, [out, *reshape.inputs[1:]], [y], dict(reshape.attrs),
                        index=reshape.index)]


def _only_reader(readers: dict[int, list[Node]], outputs: set[int], t: Tensor) -> Node | None:
    users = readers.get(id(t), [])
    if len(users) != 1 or id(t) in outputs or users[0].inputs[0] is not t:
        return None
    return users[0]


def fuse_requant(graph: Graph) -> Graph:
    """`graph` with every fusable conv2d_s32 -> requant_shift pair as one conv2d_rqs node."""
    readers = _readers(graph)
    outputs = {id(t) for t in graph.outputs}
    fused: dict[int, list[Node]] = {}  # id(conv) -> its replacement
    dropped: set[int] = set()  # id of the nodes folded into one
    for node in graph.nodes:
        if node.op != "conv2d_s32":
            continue
        user = _only_reader(readers, outputs, node.outputs[0])
        reshape = None
        if user is not None and user.op == "reshape":
            reshape, user = user, _only_reader(readers, outputs, user.outputs[0])
        if user is None or user.op != "requant_shift":
            continue
        new = _fused(node, user, reshape)
        if new is not None:
            fused[id(node)] = new
            dropped |= {id(user), id(reshape)}
    if not fused:
        return graph
    nodes = [m for n in graph.nodes if id(n) not in dropped for m in fused.get(id(n), [n])]
    return replace(graph, nodes=nodes)
