"""CONV2D_S32: int8 NHWC convolution (grouped; depthwise is groups == channels) to int32 accumulators.

The integer dialect's Conv / Gemm / MatMul / AveragePool (a sum with weights 1):
    out[n, y, x, oc] = bias[oc] + sum over in-bounds taps of w[oc, i, j, c] * (x[..] + input_offset)
with explicit padding (pad_top, pad_left, pad_bottom, pad_right): taps in the padding contribute 0.
No requantization: a RequantShift (requant_shift) follows. The compiler checks that no accumulator
can leave int32.

inputs [x int8 NHWC, w int8 OHWI (I = in_ch / groups), bias int32 [out_ch] | None];
attrs stride=(h, w), dilation=(h, w), pads=(top, left, bottom, right).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register
from mote.ops.windows import grouped_conv, layer_windows
from mote.quant import INT32_MAX


@dataclass(frozen=True, eq=False)
class ConvS32Params:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    filter_in_ch: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_top: int
    pad_left: int
    input_offset: int
    weights: np.ndarray  # int8 [out_ch, filter_h, filter_w, filter_in_ch]
    bias: np.ndarray | None  # int32 [out_ch]


def out_size(size: int, filt: int, stride: int, dilation: int, before: int, after: int) -> int:
    return (size + before + after - ((filt - 1) * dilation + 1)) // stride + 1


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None
    (sh, sw), (dh, dw) = attr(node, "stride"), attr(node, "dilation")
    t, left, b, r = attr(node, "pads")
    oh = out_size(x.shape[1], w.shape[1], sh, dh, t, b)
    return [(x.shape[0], oh, out_size(x.shape[2], w.shape[2], sw, dw, left, r), w.shape[0])]


def prepare(node: Node) -> ConvS32Params:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    b = node.inputs[2] if len(node.inputs) > 2 else None
    assert x is not None and w is not None
    if x.dtype is not DType.INT8 or w.dtype is not DType.INT8 or out.dtype is not DType.INT32 or w.data is None:
        raise UnsupportedError(f"node {node.name!r} (conv2d_s32): int8 input, constant int8 weights, int32 output")
    n, h, wd, c = x.shape
    oc, fh, fw, fic = w.shape
    if fic == 0 or c % fic or oc % (c // fic):
        raise UnsupportedError(f"node {node.name!r}: filter {list(w.shape)} does not divide {c} input channels "
                               "into groups")
    bias = None
    if b is not None:
        if b.data is None or b.data.size != oc:
            raise UnsupportedError(f"node {node.name!r}: the bias must be a constant of {oc} values")
        bias = np.asarray(b.data, np.int64).reshape(-1).astype(np.int32)
    (sh, sw), (dh, dw) = attr(node, "stride"), attr(node, "dilation")
    offset = 0 if x.quant is None else -x.quant.zero_point[0]
    worst = (0 if bias is None else int(np.abs(bias.astype(np.int64)).max(initial=0))) \
        + fh * fw * fic * 128 * (128 + abs(offset))
    if worst > INT32_MAX:
        raise UnsupportedError(f"node {node.name!r}: int32 accumulators could overflow ({fh * fw * fic} taps)")
    _, oh, ow, _ = shape(node)[0]
    t, left, _, _ = attr(node, "pads")
    return ConvS32Params(n, h, wd, c, oh, ow, oc, fh, fw, fic, sh, sw, dh, dw, t, left, offset,
                         np.asarray(w.data, np.int8), bias)


def reference(node: Node, p: ConvS32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    win = layer_windows(p, inputs[0])
    acc = grouped_conv(win, p.weights, p.in_ch // p.filter_in_ch)
    if p.bias is not None:
        acc = acc + p.bias
    return [acc.astype(np.int32)]


def emit(node: Node, p: ConvS32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {k: v for k, v in vars(p).items() if k not in ("weights", "bias")}
    fields.update(weights=em.const(p.weights, "weights"),
                  bias="NULL" if p.bias is None else em.const(p.bias, "bias"))
    return CCall("mote_conv_s8_s32", "mote_conv_s32_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1] * w.shape[2] * w.shape[3]


def check(node: Node) -> None:
    """What shape and prepare read: input, filter and output ranks, sizes at least 1, pads at least 0."""
    checks.input_count(node, 2, 3)
    x, w = checks.present(node, 0, "input"), checks.present(node, 1, "filter")
    checks.rank(node, x, "input", 4)
    checks.rank(node, w, "filter", 4)
    checks.window_pair(node, "stride")
    checks.window_pair(node, "dilation")
    pads = attr(node, "pads")
    if not isinstance(pads, (tuple, list)) or len(pads) != 4 or not all(
            isinstance(p, Integral) and 0 <= p <= checks.MAX_WINDOW for p in pads):
        raise checks.fail(node, f"pads {pads!r} must be four whole numbers from 0 to {checks.MAX_WINDOW}")
    out_h, out_w = shape(node)[0][1:3]
    if out_h < 1 or out_w < 1:
        raise checks.fail(node, "the window is larger than the padded input; the output would be empty")
    checks.window_budget(node, x.shape[0] * out_h * out_w * w.shape[1] * w.shape[2] * x.shape[3])


OP = register(OpDef("conv2d_s32", shape, prepare, reference, emit, macs, check=check,
                    attrs={"stride": REQUIRED, "dilation": (1, 1), "pads": REQUIRED}))
