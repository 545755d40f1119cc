"""CONV_2D: int8 NHWC convolution with per-channel requantization, optionally grouped.

Bit-exact with TFLite Micro's ConvPerChannel: each output is
    clamp(requantize(bias[oc] + sum over in-bounds taps of w * (x + input_offset)) + output_offset)
where out-of-bounds taps (padding) contribute nothing. The filter zero point must be 0 (TFLM's
int8 conv ignores it, so a nonzero one would silently change the meaning of the weights), except in
legacy uint8 models, whose kernels took w - filter zero point (mote_conv_offset_s8).

The kernels and how one is chosen per core: mote.ops.conv2d_kernels; sub-byte weights (Tensor.bits 4 or 2) run
on mote_conv_packed_s8 (mote.ops.subbyte_kernels), ahead of them all.
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import (
    armv6m_kernels,
    blocked_16x8,
    blocked_f32,
    conv2d_f32,
    conv_pointwise,
    dsp_kernels,
    filter_offset_conv,
    fully_connected_row_pairs,
    lanes_16x8,
    subbyte_kernels,
    weighted_16x8,
)
from mote.ops import filter_offset as offset_kernels
from mote.ops.accumulator_range import check_accumulator_range
from mote.ops.common import activation_range
from mote.ops.conv2d_kernels import KERNELS
from mote.ops.conv2d_params import ConvParams
from mote.ops.conv_common import (
    bias_array,
    const_data,
    conv_multipliers,
    filter_offset,
    requantize,
)
from mote.ops.registry import WINDOW_ATTRS, CCall, Core, Emitter, OpDef, attr, dtype_columns, register
from mote.ops.window_checks import check_conv2d
from mote.ops.windows import grouped_conv, layer_windows, window_geometry


def prepare(node: Node) -> ConvParams:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None
    weights = const_data(w, "filter", node).astype(np.int8)
    n, h, wd, c = x.shape
    oc, fh, fw, fic = weights.shape
    if fic == 0 or c % fic or oc % (c // fic):
        raise UnsupportedError(f"node {node.name!r}: filter input depth {fic} and output depth {oc} do not divide "
                               f"the input depth {c} into groups")
    offset = filter_offset(node, w)
    g = window_geometry(node, (h, wd), (fh, fw))
    act_min, act_max = activation_range(attr(node, "activation"), out)
    multiplier, shift = conv_multipliers(x, w, out, oc)
    bias = bias_array(node, oc)
    input_offset = -x.zero_point
    check_accumulator_range(node, weights.reshape(oc, -1).astype(np.int64) + offset, bias, input_offset, multiplier,
                            shift, out.zero_point)
    return ConvParams(n, h, wd, c, *g.out, oc, fh, fw, fic, *g.stride, *g.dilation, *g.pad, input_offset,
                      out.zero_point, act_min, act_max, weights, bias, multiplier, shift, offset)


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None
    g = window_geometry(node, (x.shape[1], x.shape[2]), (w.shape[1], w.shape[2]))
    return [(x.shape[0], *g.out, w.shape[0])]


def reference(node: Node, p: ConvParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [requantize(accumulate(node, p, inputs), p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)]


def accumulate(node: Node, p: ConvParams, inputs: list[np.ndarray]) -> np.ndarray:
    """The int32 accumulators, bias included, before requantization (what an accelerator may stop at)."""
    win = layer_windows(p, inputs[0])
    acc = grouped_conv(win, p.weights.astype(np.int64) + p.filter_offset, p.groups)
    return acc if p.bias is None else acc + p.bias


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1] * w.shape[2] * w.shape[3]


def _emit(node: Node, p: ConvParams, em: Emitter) -> CCall:
    return KERNELS[-1].pack(node, p, em)  # the generic kernel; the table chooses per core


# Per activation dtype: (check, prepare, reference); the kernel records of other dtypes lead the table.
BY_DTYPE = {DType.INT16: weighted_16x8.CONV, DType.INT8: (check_conv2d, prepare, reference),
            DType.FLOAT32: (conv2d_f32.check, conv2d_f32.prepare, conv2d_f32.reference)}

# The int8 table with the split-weights record after the scalar-only ones (the blocked kernels), for weights
# that reach -128; the pointwise kernel with few input channels before the blocked ones.
_SCALAR_FIRST = next(i for i, k in enumerate(KERNELS) if k.cores != frozenset({Core.SCALAR}))
_BLOCKED = next(i for i, k in enumerate(KERNELS) if "mote_dot_pairs_4x4_s8" in k.twins)
INT8_KERNELS = offset_kernels.with_filter_offset(
    (*KERNELS[:_BLOCKED], conv_pointwise.KERNEL, *KERNELS[_BLOCKED:_SCALAR_FIRST], filter_offset_conv.WIDE_KERNEL,
     *KERNELS[_SCALAR_FIRST:]), offset_kernels.CONV, (conv_pointwise.OFFSET_KERNEL, filter_offset_conv.KERNEL))
_check, _prepare, _reference = dtype_columns(BY_DTYPE)
TABLE = (blocked_16x8.CONV_KERNEL, lanes_16x8.CONV_KERNEL, weighted_16x8.CONV_KERNEL, blocked_f32.CONV_KERNEL,
         conv2d_f32.KERNEL, subbyte_kernels.RING_KERNEL, subbyte_kernels.ROWS_KERNEL, subbyte_kernels.CONV_KERNEL,
         dsp_kernels.CONV_KERNEL, armv6m_kernels.CONV_KERNEL, fully_connected_row_pairs.CONV_KERNEL, *INT8_KERNELS)
OP = register(OpDef("conv2d", shape, _prepare, _reference, _emit, macs, tflite=("CONV_2D",), accumulate=accumulate,
                    check=_check, kernels=TABLE, attrs=WINDOW_ATTRS,
                    dtypes=tuple(BY_DTYPE)))
