"""Narrow weights: re-quantize layers' int8 weights to 4 or 2 bits per channel, keeping a valid quantized graph.

For each chosen conv2d, depthwise_conv2d or fully_connected node whose constant int8 weights are
symmetric (zero point 0), per channel c (per tensor when the weights have one scale) with
Q = 2^(bits-1) - 1 (7 for 4 bits, 1 for 2: the symmetric, narrow range) and m the channel's clipping
point:

    q'    = clamp(round(q * Q / m), -Q, Q)          round: half away from zero
    s'    = s * m / Q                               the channel's weight scale
    bias' = round(bias * Q / m), its scale s_in*s'  the accumulator is in the new units

so that s' * q' approximates s * q, and the requantization multipliers (computed from the scales when a
node is prepared) absorb the change. m is the channel's max |q| times the ratio among CLIP_RATIOS
(0.30, 0.325, ..., 1.0) that gives the smallest squared error sum((s' q' - s q)^2) over the channel (the
first such ratio from the top on a tie): clipping a few large weights buys a finer step for the rest,
which matters at 4 and 2 bits. A channel of zeros keeps its scale. The new weight tensors carry
`Tensor.bits`; values stay one per int8. The graph's nodes that change are copies: the input graph is
untouched (explorations cache it).

`for_accelerator` narrows the layers an accelerator offloads when its `weight_bits` setting asks for it:
the reference, the host's C and the virtual platform then all run the narrowed graph, and the
accelerator runs its layers in that width's mode.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mote.accel.interface import Accelerator
from mote.accel.packing import WIDTHS
from mote.accel.partition import partition
from mote.errors import MoteError
from mote.ir import DType, Graph, Node, Tensor
from mote.ir.tensor import Quant

NARROWABLE = {"conv2d": 0, "depthwise_conv2d": 3, "fully_connected": 0}  # op -> the weights' channel axis
CLIP_RATIOS = np.linspace(1.0, 0.3, 29)  # of a channel's max |q|, tried from the top (module docstring)


def _round(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def narrowable(node: Node, bits: int) -> bool:
    """Whether `narrow_weights` can narrow `node` to `bits`: a narrowable op with constant, symmetric int8
    weights wider than `bits`."""
    if node.op not in NARROWABLE or len(node.inputs) < 2:
        return False
    w = node.inputs[1]
    return w is not None and w.is_const and w.dtype is DType.INT8 and w.quant is not None and \
        all(z == 0 for z in w.quant.zero_point) and w.bits > bits


def _narrow_node(node: Node, bits: int) -> Node:
    w = node.inputs[1]
    assert w is not None and w.data is not None and w.quant is not None
    q = np.asarray(w.data, np.int64)
    top = (1 << (bits - 1)) - 1
    per_channel = w.quant.per_channel
    axis = (w.quant.axis if w.quant.axis is not None else NARROWABLE[node.op]) % q.ndim
    rows = np.moveaxis(q, axis, 0).reshape(q.shape[axis], -1) if per_channel else q.reshape(1, -1)
    factor = _factors(rows, top)  # new units per old unit, per channel
    shape = [1] * q.ndim
    if per_channel:
        shape[axis] = -1
    data = np.clip(_round(q * factor.reshape(shape)), -top, top).astype(np.int8)
    scales = tuple(float(s / f) for s, f in zip(np.asarray(w.quant.scale, np.float64), np.broadcast_to(
        factor, (len(w.quant.scale),))))
    weights = dataclasses.replace(w, name=f"{w.name} (int{bits})", data=data, bits=bits,
                                  quant=Quant(scales, w.quant.zero_point, w.quant.axis))
    inputs: list[Tensor | None] = [node.inputs[0], weights, *node.inputs[2:]]
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is not None and b.data is not None:
        channels = np.asarray(b.data).size
        per = np.broadcast_to(factor, (channels,))
        bias = np.clip(_round(np.asarray(b.data, np.int64).reshape(-1) * per), -2**31, 2**31 - 1)
        quant = b.quant if b.quant is None else _bias_quant(b.quant, per)
        inputs[2] = dataclasses.replace(b, name=f"{b.name} (int{bits} weights)",
                                        data=bias.astype(np.int32).reshape(np.asarray(b.data).shape), quant=quant)
    return Node(node.op, node.name, inputs, node.outputs, dict(node.attrs), node.index)


def _factors(rows: np.ndarray, top: int) -> np.ndarray:
    """Per row (channel): Q / m for the clipping point m with the least squared error (module docstring)."""
    peak = np.abs(rows).max(axis=1).astype(np.float64)
    best = np.where(peak > 0, top / np.maximum(peak, 1), 1.0)
    best_error = np.full(len(rows), np.inf)
    for ratio in CLIP_RATIOS:
        factor = np.where(peak > 0, top / np.maximum(peak * ratio, 1e-9), 1.0)
        approx = np.clip(_round(rows * factor[:, None]), -top, top) / factor[:, None]
        error = ((approx - rows) ** 2).sum(axis=1)
        better = error < best_error
        best, best_error = np.where(better, factor, best), np.where(better, error, best_error)
    return best


def _bias_quant(quant: Quant, factor: np.ndarray) -> Quant:
    """The bias's quantization after its values were multiplied by `factor` (per channel)."""
    if len(quant.scale) == 1 and np.all(factor == factor[0]):
        return Quant((float(quant.scale[0] / factor[0]),), quant.zero_point, quant.axis)
    scales = np.broadcast_to(np.asarray(quant.scale, np.float64), factor.shape) / factor
    zero = quant.zero_point if len(quant.zero_point) == factor.size else (quant.zero_point[0],) * factor.size
    return Quant(tuple(float(s) for s in scales), tuple(zero), 0)


def narrow_weights(graph: Graph, bits: int, nodes: set[Node] | None = None) -> Graph:
    """`graph` with the weights of `nodes` (default: every narrowable node) narrowed to `bits` bits."""
    if bits not in WIDTHS:
        raise MoteError(f"weight_bits={bits}: weights narrow to {', '.join(map(str, WIDTHS[1:]))} bits (8: as they "
                        "are)")
    if bits == 8:
        return graph
    chosen = [n for n in graph.nodes if (nodes is None or n in nodes) and narrowable(n, bits)]
    if not chosen:
        return graph
    swap = {n: _narrow_node(n, bits) for n in chosen}
    return Graph(graph.name, graph.inputs, graph.outputs, [swap.get(n, n) for n in graph.nodes], list(graph.notes))


def for_accelerator(graph: Graph, accel: Accelerator | None) -> Graph:
    """`graph` with the weights of the layers `accel` offloads narrowed to its `weight_bits` setting (itself
    when there is none, or it is 8); a MoteError if no mode of the accelerator takes that width."""
    if accel is None or accel.weight_bits == 8:
        return graph
    bits = accel.weight_bits
    if bits not in accel.operand_bits().weights:
        widths = ", ".join(map(str, accel.operand_bits().weights))
        raise MoteError(f"--accel {accel.label}: weight_bits={bits}, but {accel.name}'s weight modes take {widths} "
                        "bits; give one of those")
    offloaded = {d.node for d in partition(graph, accel) if d.offloaded}
    return narrow_weights(graph, bits, offloaded)
