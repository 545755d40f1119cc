"""Negative per-channel weight scales, which some converters write (mcunet's exported int8 models): TFLite Micro
multiplies each scale into its channel's requantization multiplier, which comes out negative, and its kernels
compute with it as they are. mote's kernels take multipliers in [0, 2^31) (their output stages are built on
it), so the sign moves into the data instead: for a channel with a negative scale, the weights, the bias and
the scales are negated. The accumulator is then exactly the negated one, and TFLite's
MultiplyByQuantizedMultiplier gives the same result for (acc, m) and (-acc, -m): both take the same 64-bit
product acc * m. That holds for int8 activations whose channel's multiplier has no left shift (a scale ratio
below 1; a left-shifted accumulator may wrap to -2^31, whose negation int32 does not hold) and whose Q31
multiplier is the negation of its positive twin; anything else is refused with one line, as are weights at the
bottom of their range (-128 has no int8 negation). What remains negative afterwards the graph check refuses.
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.quant import quantize_multiplier

WEIGHTED_OPS = {"conv2d", "depthwise_conv2d", "fully_connected"}


def fold_negative_scales(graph: Graph) -> None:
    """Rewrite in place every weighted int8 node whose per-channel weight scales include negative ones."""
    folded: dict[int, Tensor] = {}
    for node in graph.nodes:
        w = node.inputs[1] if node.op in WEIGHTED_OPS and len(node.inputs) > 1 else None
        if w is None or w.quant is None or len(w.quant.scale) < 2 or min(w.quant.scale) >= 0:
            continue
        negative = np.asarray(w.quant.scale) < 0
        _check_channels(node, w, negative)
        node.inputs = list(node.inputs)
        node.inputs[1] = folded.setdefault(id(w), _negated(node, w, negative, w.quant.axis))
        b = node.inputs[2] if len(node.inputs) > 2 else None
        if b is not None:
            if b.data is None or b.size != negative.size:
                raise UnsupportedError(f"{graph.name}: node {node.name!r}: negative weight scales need a constant "
                                       f"bias of one value per channel; {b.name!r} is not")
            node.inputs[2] = folded.setdefault(id(b), _negated(node, b, negative, 0))


def _check_channels(node: Node, w: Tensor, negative: np.ndarray) -> None:
    x, y = node.inputs[0], node.outputs[0]
    where = f"node {node.name!r} ({node.op}): weights {w.name!r} have negative per-channel scales"
    if x is None or x.dtype is not DType.INT8 or x.quant is None or y.quant is None or w.data is None:
        raise UnsupportedError(f"{where}; mote takes them with constant weights and int8 activations only")
    for c in np.flatnonzero(negative):
        real = float(np.float32(x.quant.scale[0])) * float(np.float32(w.quant.scale[c])) \
            / float(np.float32(y.quant.scale[0]))
        m_neg, shift_neg = quantize_multiplier(real)
        m_pos, shift_pos = quantize_multiplier(-real)
        if shift_neg > 0 or (m_neg, shift_neg) != (-m_pos, shift_pos):
            raise UnsupportedError(f"{where}, and channel {c}'s scale ratio {real:g} has no exact positive twin; "
                                   "requantize the model with positive scales")


def _negated(node: Node, t: Tensor, negative: np.ndarray, axis: int | None) -> Tensor:
    """`t` with the channels `negative` marks (along `axis`) negated, values and scales."""
    assert t.data is not None and axis is not None
    shape = [1] * t.data.ndim
    shape[axis] = negative.size
    flip = negative.reshape(shape)
    low = -(1 << (t.bits - 1)) if t.dtype is DType.INT8 else int(np.iinfo(t.dtype.np).min)
    if np.any(flip & (t.data == low)):
        raise UnsupportedError(f"node {node.name!r}: {t.name!r} holds {low} in a channel with a negative scale, "
                               "whose negation does not fit; requantize the model with positive scales")
    data = np.where(flip, -t.data.astype(np.int64), t.data).astype(t.data.dtype)
    quant = t.quant
    if quant is not None and len(quant.scale) == negative.size:
        quant = Quant(tuple(-s if n else s for s, n in zip(quant.scale, negative)), quant.zero_point, quant.axis)
    return Tensor(t.name, t.shape, t.dtype, quant, data, t.variable, t.reset_byte, t.bits)
