"""fuse_requant: an integer-dialect convolution whose only reader is a RequantShift -> one conv2d_rqs layer.

The integer ONNX frontend makes each Conv, and each Gemm/MatMul with constant weights (a 1x1
convolution), a conv2d_s32 writing int32 accumulators, and its RequantShift a requant_shift reading
them back. Compiled as they are, every accumulator goes to memory and back through a second pass, and
conv2d_s32's kernel is a plain loop. This pass replaces each pair

    x -> conv2d_s32 -> acc (int32, read by nothing else, no graph output) [-> reshape] [-> add_s32 of a
    constant per output channel] -> requant_shift -> y

(a Gemm's rows come back to its shape through the reshape, which then moves to the int8 side; a MatMul's
bias added after it joins the convolution's bias)

by conv2d_rqs (mote/ops/conv2d_rqs.py), which runs on the register-blocked kernel and requantizes
each accumulator with RequantShift's own formula in its output stage: the same bytes. Pairs the blocked
kernel does not take (grouped or depthwise convolutions, weights of -128, accumulators that may
leave int32, requantization not per output channel) are left as they are. Likewise a product of two int8
activations (matmul_s32, alpha 1, no bias) whose only reader is a RequantShift per tensor or per column (over
the last axis) becomes one matmul_rqs layer (mote/ops/matmul_rqs.py) on the register-blocked batch-matmul
kernels. The graph given is not changed: a rewritten copy is returned (the same object when nothing matched).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Graph, Node, Tensor
from mote.ops import conv2d_rqs, conv2d_s32, matmul_rqs, matmul_s32, requant_shift


def _readers(graph: Graph) -> dict[int, list[Node]]:
    out: dict[int, list[Node]] = {}
    for node in graph.nodes:
        for t in node.inputs:
            if t is not None:
                out.setdefault(id(t), []).append(node)
    return out


def _plain(t: Tensor) -> bool:
    return t.quant is None or not any(t.quant.zero_point)


def _bias_plus(conv: Node, add: Node, t: Tensor) -> Tensor | None:
    """The conv's bias plus the constant that `add` (an add_s32 of t and a constant) adds per output channel,
    or None if it adds anything else."""
    other = add.inputs[1] if add.inputs[0] is t else add.inputs[0]
    out_ch = conv.outputs[0].shape[-1]
    if add.attrs.get("arith") != "add" or other is None or other.data is None or add.outputs[0].shape != t.shape \
            or not (_plain(other) and _plain(t)) or any(d != 1 for d in other.shape[:-1]) \
            or np.asarray(other.data).size not in (1, out_ch):
        return None
    b = conv.inputs[2] if len(conv.inputs) > 2 else None
    total = np.broadcast_to(np.asarray(other.data, np.int64).reshape(-1), (out_ch,)) \
        + (0 if b is None or b.data is None else np.asarray(b.data, np.int64).reshape(-1))
    if b is not None and b.data is None or np.abs(total).max(initial=0) >= 2**31:
        return None
    return Tensor(f"{conv.name}_bias_{add.name}", (out_ch,), DType.INT32, data=total.astype(np.int32))


def _fused(conv: Node, rqs: Node, reshape: Node | None, bias: Tensor | None) -> list[Node] | None:
    """The conv2d_rqs node for the pair (and the reshape after it), or None when the blocked kernel does not
    take it; `bias` replaces the conv's when an add is folded in."""
    if bias is not None:
        conv = Node(conv.op, conv.name, [conv.inputs[0], conv.inputs[1], bias], conv.outputs, conv.attrs,
                    index=conv.index)
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


def _only_reader(readers: dict[int, list[Node]], outputs: set[int], t: Tensor, anywhere: bool = False
                 ) -> Node | None:
    """The one node that reads t (as its first input unless `anywhere`), or None."""
    users = readers.get(id(t), [])
    if len(users) != 1 or id(t) in outputs or not (anywhere or users[0].inputs[0] is t) \
            or sum(u is t for u in users[0].inputs) != 1:
        return None
    return users[0]


def _product(node: Node, rqs: Node) -> Node | None:
    """The matmul_rqs node for a matmul_s32 -> requant_shift pair, or None when the blocked kernel does not
    take it."""
    a, b = node.inputs[0], node.inputs[1]
    y = rqs.outputs[0]
    if a is None or b is None or len(node.inputs) > 2 and node.inputs[2] is not None or y.dtype is not DType.INT8:
        return None
    acc = node.outputs[0]
    rqs_in = Node(rqs.op, rqs.name, [acc, *rqs.inputs[1:]], [y], rqs.attrs)
    try:
        m, r = matmul_s32.prepare(node), requant_shift.prepare(rqs_in)
    except MoteError:
        return None
    if matmul_rqs.why_not(m, r) is not None:
        return None
    return Node("matmul_rqs", rqs.name, [a, b, rqs.inputs[1], rqs.inputs[2]], [y],
                {k: rqs.attrs[k] for k in matmul_rqs.RQS_ATTRS}, index=node.index)


def fuse_requant(graph: Graph) -> Graph:
    """`graph` with every fusable conv2d_s32 -> requant_shift pair as one conv2d_rqs node and every fusable
    matmul_s32 -> requant_shift pair as one matmul_rqs node."""
    readers = _readers(graph)
    outputs = {id(t) for t in graph.outputs}
    fused: dict[int, list[Node]] = {}  # id(conv) -> its replacement
    dropped: set[int] = set()  # id of the nodes folded into one
    for node in graph.nodes:
        if node.op == "matmul_s32":
            user = _only_reader(readers, outputs, node.outputs[0])
            if user is not None and user.op == "requant_shift" and (new_mm := _product(node, user)) is not None:
                fused[id(node)] = [new_mm]
                dropped.add(id(user))
            continue
        if node.op != "conv2d_s32":
            continue
        user = _only_reader(readers, outputs, node.outputs[0], anywhere=True)
        reshape = add = bias = None
        if user is not None and user.op == "reshape" and user.inputs[0] is node.outputs[0]:
            reshape, user = user, _only_reader(readers, outputs, user.outputs[0], anywhere=True)
        if user is not None and user.op == "add_s32":
            add, t = user, (node if reshape is None else reshape).outputs[0]
            user = _only_reader(readers, outputs, add.outputs[0], anywhere=True)
            bias = _bias_plus(node, add, t)
            if bias is None:
                continue
        if user is None or user.op != "requant_shift" or user.inputs[0] is not (add or reshape or node).outputs[0]:
            continue
        new = _fused(node, user, reshape, bias)
        if new is not None:
            fused[id(node)] = new
            dropped |= {id(user), id(reshape), id(add)}
    if not fused:
        return graph
    nodes = [m for n in graph.nodes if id(n) not in dropped for m in fused.get(id(n), [n])]
    return replace(graph, nodes=nodes)
