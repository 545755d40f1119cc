"""FULLY_CONNECTED: out[b, o] = requantize(bias[o] + sum_d (w[o, d] + filter_offset) * (x[b, d] + input_offset)).

Bit-exact with TFLite Micro's int8 FullyConnected (per-tensor weights: the filter zero point is
applied, and the multiplier comes from GetQuantizedConvolutionMultipler, whose input * filter
scale product is taken in double) and FullyConnectedPerChannel (more than one filter scale: the filter
zero point is ignored, and each multiplier is computed in double as for convolutions).
The input is read as [batches, accum_depth] with accum_depth = w.shape[1].

Kernels (the table KERNELS): for sub-byte weights, mote_fully_connected_packed_s8 (mote.ops.subbyte_kernels);
mote_fully_connected_s8 (vectorizing dot products, four weight rows at
a time); on a scalar core (Core.SCALAR), mote_fully_connected_pairs_s8 (two products per multiply from
weights packed in pair words, mote.ops.fully_connected_pairs: output depths in sixteens, accumulation
depths in fours, and within its flash rule), else mote_fully_connected_bytes_s8 (the same sums from weights
kept one byte each, unpacked into pair words in registers, mote.ops.fully_connected_bytes: the layers the
pairs kernel leaves for their flash), else mote_fully_connected_row_pairs_s8 (two rows' products per multiply
from row-pair words, up to eight rows a pass over the input, mote.ops.fully_connected_row_pairs: few rows,
or rows not in sixteens), else mote_fully_connected_blocked_s8 (sixteen weight rows
interleaved at compile time, their accumulators in registers; the rows left over, out_depth % 16, as
blocks of 8, 4 and 1 to 3, no padding rows).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import (
    armv6m_kernels,
    blocked_16x8,
    blocked_f32,
    dsp_kernels,
    fully_connected_bytes,
    fully_connected_f32,
    fully_connected_pairs,
    fully_connected_row_pairs,
    subbyte_kernels,
    weighted_16x8,
)
from mote.ops.accumulator_range import check_accumulator_range
from mote.ops.common import activation_range
from mote.ops.conv_common import (
    bias_array,
    const_data,
    conv_multipliers,
    f32,
    fits_int32,
    requantize,
)
from mote.ops.output_stage import output_multipliers
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, attr, dtype_columns, register
from mote.ops.window_checks import check_fully_connected
from mote.quant import quantize_multiplier


@dataclass(frozen=True, eq=False)
class FullyConnectedParams:
    batches: int
    accum_depth: int
    out_depth: int
    input_offset: int  # -input zero point
    filter_offset: int  # -filter zero point for per-tensor weights; 0 when per channel (TFLM ignores it)
    output_offset: int  # output zero point
    act_min: int
    act_max: int
    weights: np.ndarray  # int8 [out_depth, accum_depth]
    bias: np.ndarray | None  # int32 [out_depth]
    multiplier: np.ndarray  # int32 [out_depth], Q31 (a per-tensor multiplier repeated)
    shift: np.ndarray  # int32 [out_depth], > 0 means left
    folded_bias: np.ndarray  # int32: bias + input_offset * sum_d w + accum_depth * filter_offset * input_offset


def per_tensor_multiplier(x: Tensor, w: Tensor, out: Tensor) -> tuple[int, int]:
    """TFLite Micro's GetQuantizedConvolutionMultipler: input_scale * filter_scale / output_scale, each
    float32 scale widened to double first (a float32 product differs in the last bits: the MLPerf Tiny
    AD model's last layer is then off by one on about 1 input in 150)."""
    return quantize_multiplier(f32(x.scale) * f32(w.scale) / f32(out.scale))


def prepare(node: Node) -> FullyConnectedParams:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None and w.quant is not None
    weights = const_data(w, "weights", node).astype(np.int8)
    if weights.ndim != 2:
        raise UnsupportedError(f"node {node.name!r}: fully connected weights must be 2-D, got {weights.shape}")
    out_depth, depth = weights.shape
    if depth == 0 or x.size % depth:
        raise UnsupportedError(f"node {node.name!r}: input of {x.size} values is not a whole number of rows of "
                               f"{depth}")
    if len(w.quant.scale) > 1:
        multiplier, shift = conv_multipliers(x, w, out, out_depth)
        filter_offset = 0
    else:
        m, s = per_tensor_multiplier(x, w, out)
        multiplier, shift = np.full(out_depth, m, np.int32), np.full(out_depth, s, np.int32)
        filter_offset = -w.zero_point
    bias = bias_array(node, out_depth)
    input_offset = -x.zero_point
    act_min, act_max = activation_range(attr(node, "activation"), out)
    check_accumulator_range(node, weights.astype(np.int64) + filter_offset, bias, input_offset, multiplier, shift,
                            out.zero_point)
    folded = (np.zeros(out_depth, np.int64) if bias is None else bias.astype(np.int64)) \
        + input_offset * weights.astype(np.int64).sum(axis=1) + depth * filter_offset * input_offset
    # The kernel's accumulator: folded bias + filter_offset * sum(x) + the products w * x, each bounded.
    if not fits_int32(int(np.abs(folded).max(initial=0)) + depth * 128 * (128 + abs(filter_offset))):
        raise UnsupportedError(f"node {node.name!r}: mote's fully connected kernels start from the bias with the "
                               f"input offset folded in ({int(np.abs(folded).max(initial=0))}), which leaves too "
                               f"little int32 room for an accumulation depth of {depth}; requantize the model with "
                               "smaller biases")
    return FullyConnectedParams(x.size // depth, depth, out_depth, input_offset, filter_offset, out.zero_point,
                                act_min, act_max, weights, bias, multiplier, shift, folded.astype(np.int32))


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None
    if attr(node, "keep_num_dims"):
        return [(*x.shape[:-1], w.shape[0])]
    return [(x.size // w.shape[1], w.shape[0])]


def reference(node: Node, p: FullyConnectedParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = inputs[0].reshape(p.batches, p.accum_depth).astype(np.int64) + p.input_offset
    acc = x @ (p.weights.astype(np.int64) + p.filter_offset).T
    if p.bias is not None:
        acc = acc + p.bias
    result = requantize(acc, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)
    return [result.reshape(node.outputs[0].shape)]


def block_widths(out_depth: int) -> list[int]:
    """mote_fully_connected_blocked_s8's blocks of rows: sixteen, then the rest as 8, 4 and the last 1 to 3."""
    widths: list[int] = []
    while (left := out_depth - sum(widths)) > 0:
        widths.append(next((w for w in (16, 8, 4) if left >= w), left))
    return widths


def _pack_blocked(node: Node, p: FullyConnectedParams, em: Emitter) -> CCall:
    """Each block of rows interleaved [depth][row] (block_widths)."""
    starts = np.cumsum([0, *block_widths(p.out_depth)])
    blocks = [p.weights[o:end].T.reshape(-1) for o, end in zip(starts[:-1], starts[1:])]
    weights = np.concatenate(blocks).astype(np.int8)
    return _call("mote_fully_connected_blocked_s8", node, p, weights, p.folded_bias, em)


def _pack(node: Node, p: FullyConnectedParams, em: Emitter) -> CCall:
    return _call("mote_fully_connected_s8", node, p, p.weights, p.folded_bias, em)


def _call(kernel: str, node: Node, p: FullyConnectedParams, weights: np.ndarray, bias: np.ndarray,
          em: Emitter) -> CCall:
    """Both kernels' params: the same fields, the weights and bias in the kernel's order."""
    x = node.inputs[0]
    assert x is not None
    left_mul, right_mul = output_multipliers(p.shift)
    fields: dict[str, int | str] = {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "filter_offset": p.filter_offset, "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "weights": em.const(weights, "weights"), "bias": em.const(bias, "folded_bias"),
        "multiplier": em.const(p.multiplier, "multiplier"), "left_mul": em.const(left_mul, "left_mul"),
        "right_mul": em.const(right_mul, "right_mul")}
    return CCall(kernel, kernel.removesuffix("_s8") + "_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1]


KERNELS = (
    blocked_16x8.FULLY_CONNECTED_KERNEL,
    weighted_16x8.FULLY_CONNECTED_KERNEL,
    blocked_f32.FULLY_CONNECTED_KERNEL,
    fully_connected_f32.KERNEL,
    subbyte_kernels.FULLY_CONNECTED_KERNEL,
    dsp_kernels.FULLY_CONNECTED_KERNEL,
    armv6m_kernels.FULLY_CONNECTED_KERNEL,
    fully_connected_pairs.KERNEL,
    fully_connected_bytes.KERNEL,
    fully_connected_row_pairs.KERNEL,
    Kernel("mote_fully_connected_blocked_s8", frozenset({Core.SCALAR}), _pack_blocked),
    Kernel("mote_fully_connected_s8", frozenset(Core), _pack),
)


# Per activation dtype: (check, prepare, reference).
BY_DTYPE = {DType.INT16: weighted_16x8.FULLY_CONNECTED, DType.INT8: (check_fully_connected, prepare, reference),
            DType.FLOAT32: (fully_connected_f32.check, fully_connected_f32.prepare, fully_connected_f32.reference)}

_check, _prepare, _reference = dtype_columns(BY_DTYPE)
OP = register(OpDef("fully_connected", shape, _prepare, _reference, _pack, macs, tflite=("FULLY_CONNECTED",),
                    check=_check, kernels=KERNELS, attrs={"activation": "NONE", "keep_num_dims": False},
                    dtypes=tuple(BY_DTYPE)))
