"""narrow_weights: an int8 model's convolution, depthwise convolution and fully connected weights re-quantized
to 4 or 2 bits (Tensor.bits), per output channel and symmetric, for sweeps and figures over weight widths.

Each output channel's real weights w = q * scale get the scale max |w| / ((2^bits - 1) / 2) (onnxruntime's
symmetric rule at any width: 7.5 for 4 bits, 1.5 for 2) and the values clip(round(w / scale)) in the signed
range of `bits` bits; the layer's int32 bias, on the scale input scale * weight scale, moves to the new scale
(rounded). Per-tensor weights become per channel (axis 0 of conv2d and fully_connected weights, axis 3 of
depthwise_conv2d's). Weights with a zero point (legacy uint8) and layers whose weights are already that narrow
are left as they are. This re-quantizes already quantized weights: `mote quantize --weight-bits` quantizes from
the float model, which loses less.
The graph given is not changed: a rewritten copy is returned.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Graph, Quant, Tensor, subbyte

# op -> the weights' output-channel axis
OPS = {"conv2d": 0, "fully_connected": 0, "depthwise_conv2d": 3}


def narrow_weights(graph: Graph, bits: int) -> Graph:
    """The graph with its layers' weights at `bits` bits (8: the graph itself)."""
    subbyte.check_bits(bits, "narrow_weights")
    if bits == 8:
        return graph
    nodes = []
    for node in graph.nodes:
        w = node.inputs[1] if node.op in OPS and len(node.inputs) > 1 else None
        if w is None or not _narrowable(w, bits):
            nodes.append(node)
            continue
        x = node.inputs[0]
        assert x is not None
        weights, ratio = _narrowed(w, OPS[node.op], bits)
        inputs = [x, weights, *node.inputs[2:]]
        bias = node.inputs[2] if len(node.inputs) > 2 else None
        if bias is not None:
            inputs[2] = _moved_bias(bias, ratio)
        nodes.append(replace(node, inputs=inputs))
    return replace(graph, nodes=nodes)


def _narrowable(w: Tensor, bits: int) -> bool:
    return (w.dtype is DType.INT8 and w.is_const and w.quant is not None and w.bits > bits
            and not any(w.quant.zero_point))


def _narrowed(w: Tensor, axis: int, bits: int) -> tuple[Tensor, np.ndarray]:
    """The weights re-quantized, and per channel new scale / old scale."""
    assert w.data is not None and w.quant is not None
    low, high = subbyte.value_range(bits)
    channels = w.shape[axis]
    old = np.broadcast_to(np.asarray(w.quant.scale, np.float64), (channels,))
    q = np.moveaxis(np.asarray(w.data, np.float64), axis, 0).reshape(channels, -1)
    real = q * old[:, None]
    peak = np.abs(real).max(axis=1)
    new = np.where(peak > 0, peak / ((high - low) / 2), old).astype(np.float32).astype(np.float64)
    values = np.clip(np.rint(real / new[:, None]), low, high).astype(np.int8)
    data = np.moveaxis(values.reshape(np.moveaxis(w.data, axis, 0).shape), 0, axis)
    quant = Quant(tuple(float(s) for s in new), (0,) * channels, axis)
    return replace(w, name=f"{w.name} ({bits}-bit)", data=np.ascontiguousarray(data), quant=quant, bits=bits), \
        new / old


def _moved_bias(bias: Tensor, ratio: np.ndarray) -> Tensor:
    """An int32 bias on scale input scale * old weight scale, on input scale * new weight scale."""
    if bias.data is None or bias.dtype is not DType.INT32:
        return bias
    channels = ratio.size
    data = np.broadcast_to(np.asarray(bias.data, np.float64).reshape(-1), (channels,))
    moved = np.rint(data / ratio)
    if np.abs(moved).max(initial=0) >= 2**31:
        raise UnsupportedError(f"tensor {bias.name!r}: the bias does not fit int32 on the narrowed weights' scale; "
                               "narrow this model's weights less")
    quant = None
    if bias.quant is not None:
        old = np.broadcast_to(np.asarray(bias.quant.scale, np.float64), (channels,))
        quant = Quant(tuple(float(s) for s in old * ratio), (0,) * channels, 0)
    return replace(bias, name=f"{bias.name} (moved)", shape=(channels,), data=moved.astype(np.int32), quant=quant)
