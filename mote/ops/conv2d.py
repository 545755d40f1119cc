"""CONV_2D: int8 NHWC convolution with per-channel requantization, optionally grouped.

Bit-exact with TFLite Micro's ConvPerChannel: each output is
    clamp(requantize(bias[oc] + sum over in-bounds taps of w * (x + input_offset)) + output_offset)
where out-of-bounds taps (padding) contribute nothing. The filter zero point must be 0 (TFLM's
int8 conv ignores it, so a nonzero one would silently change the meaning of the weights).

The helpers here (multipliers, zero-padded windows, requantization) are shared by
depthwise_conv2d and fully_connected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node, Tensor
from mote.ops.common import activation_range, out_size_and_pad
from mote.ops.registry import CCall, Emitter, OpDef, register
from mote.quant import INT32_MAX, multiply_by_quantized_multiplier, quantize_multiplier


def f32(x: float) -> float:
    """A scale as TFLite stores it (float32), widened to double exactly."""
    return float(np.float32(x))


def conv_multipliers(x: Tensor, w: Tensor, out: Tensor, channels: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output channel (Q31 multiplier, shift), as TFLite's PopulateConvolutionQuantizationParams.

    effective = double(input_scale) * double(filter_scale[c]) / double(output_scale), each scale a
    float32 widened to double; a per-tensor filter scale is broadcast to every channel.
    """
    assert w.quant is not None
    scales = w.quant.scale
    if len(scales) not in (1, channels):
        raise UnsupportedError(f"weights {w.name!r}: {len(scales)} scales for {channels} output channels")
    pairs = [quantize_multiplier(f32(x.scale) * f32(scales[c if len(scales) > 1 else 0]) / f32(out.scale))
             for c in range(channels)]
    return np.array([m for m, _ in pairs], dtype=np.int32), np.array([s for _, s in pairs], dtype=np.int32)


def require_symmetric_weights(w: Tensor) -> None:
    assert w.quant is not None
    if any(z != 0 for z in w.quant.zero_point):
        raise UnsupportedError(f"weights {w.name!r}: int8 convolution weights must have zero point 0 "
                               f"(got {sorted(set(w.quant.zero_point))}); requantize the model symmetrically")


def bias_array(node: Node, channels: int) -> np.ndarray | None:
    """The optional int32 bias input (node.inputs[2]) as a flat array, or None."""
    b = node.inputs[2] if len(node.inputs) > 2 else None
    if b is None:
        return None
    if b.data is None:
        raise UnsupportedError(f"node {node.name!r}: the bias {b.name!r} must be a constant")
    bias = np.asarray(b.data, dtype=np.int64).reshape(-1)
    if bias.size != channels:
        raise UnsupportedError(f"node {node.name!r}: bias has {bias.size} values for {channels} output channels")
    return bias.astype(np.int32)


def const_data(t: Tensor | None, what: str, node: Node) -> np.ndarray:
    if t is None or t.data is None:
        raise UnsupportedError(f"node {node.name!r} ({node.op}): the {what} must be a constant tensor")
    return np.asarray(t.data)


def fits_int32(worst: int) -> bool:
    """Whether an accumulator whose magnitude is at most `worst` cannot overflow int32."""
    return worst <= INT32_MAX


def zero_padded_windows(x: np.ndarray, out_hw: tuple[int, int], filt: tuple[int, int], stride: tuple[int, int],
                        dilation: tuple[int, int], pad: tuple[int, int]) -> np.ndarray:
    """x [n, h, w, c] (already offset) as windows [n, oh, ow, fh, fw, c]; taps outside the input read 0."""
    n, h, w, c = x.shape
    rows = np.arange(out_hw[0])[:, None] * stride[0] + np.arange(filt[0])[None, :] * dilation[0]
    cols = np.arange(out_hw[1])[:, None] * stride[1] + np.arange(filt[1])[None, :] * dilation[1]
    padded = np.zeros((n, max(pad[0] + h, int(rows.max(initial=0)) + 1),
                       max(pad[1] + w, int(cols.max(initial=0)) + 1), c), dtype=np.int64)
    padded[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w, :] = x
    return padded[:, rows[:, None, :, None], cols[None, :, None, :], :]


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, output_offset: int,
               act_min: int, act_max: int) -> np.ndarray:
    """int32 accumulators (last axis = channel) to clamped int8 outputs."""
    scaled = multiply_by_quantized_multiplier(acc, multiplier, shift) + output_offset
    return np.clip(scaled, act_min, act_max).astype(np.int8)


@dataclass(frozen=True, eq=False)
class ConvParams:
    batches: int
    in_h: int
    in_w: int
    in_ch: int
    out_h: int
    out_w: int
    out_ch: int
    filter_h: int
    filter_w: int
    filter_in_ch: int  # groups = in_ch / filter_in_ch
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_top: int
    pad_left: int
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    act_min: int
    act_max: int
    weights: np.ndarray  # int8 [out_ch, filter_h, filter_w, filter_in_ch]
    bias: np.ndarray | None  # int32 [out_ch]
    multiplier: np.ndarray  # int32 [out_ch], Q31
    shift: np.ndarray  # int32 [out_ch], > 0 means left
    folded_bias: np.ndarray | None  # int32 [out_ch]: bias + input_offset * sum(weights[oc]); set iff the 1x1 path

    @property
    def groups(self) -> int:
        return self.in_ch // self.filter_in_ch


def prepare(node: Node) -> ConvParams:
    x, w, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and w is not None
    weights = const_data(w, "filter", node).astype(np.int8)
    n, h, wd, c = x.shape
    oc, fh, fw, fic = weights.shape
    if fic == 0 or c % fic or oc % (c // fic):
        raise UnsupportedError(f"node {node.name!r}: filter input depth {fic} and output depth {oc} do not divide "
                               f"the input depth {c} into groups")
    require_symmetric_weights(w)
    (sh, sw), (dh, dw) = node.attrs["stride"], node.attrs.get("dilation", (1, 1))
    oh, pad_top = out_size_and_pad(h, fh, sh, dh, node.attrs["padding"])
    ow, pad_left = out_size_and_pad(wd, fw, sw, dw, node.attrs["padding"])
    act_min, act_max = activation_range(node.attrs.get("activation", "NONE"), out)
    multiplier, shift = conv_multipliers(x, w, out, oc)
    bias = bias_array(node, oc)
    input_offset = -x.zero_point
    folded = None
    if fh == fw == 1 and sh == sw == 1 and fic == c:  # 1x1, stride 1: no padding, dilation is moot
        folded64 = (np.zeros(oc, np.int64) if bias is None else bias.astype(np.int64)) \
            + input_offset * weights.reshape(oc, -1).astype(np.int64).sum(axis=1)
        # The 1x1 kernel starts from the folded bias and adds at most c products of magnitude 128*128.
        if fits_int32(int(np.abs(folded64).max(initial=0)) + c * 128 * 128):
            folded = folded64.astype(np.int32)
    return ConvParams(n, h, wd, c, oh, ow, oc, fh, fw, fic, sh, sw, dh, dw, pad_top, pad_left, input_offset,
                      out.zero_point, act_min, act_max, weights, bias, multiplier, shift, folded)


def shape(node: Node) -> list[tuple[int, ...]]:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None
    (sh, sw), (dh, dw) = node.attrs["stride"], node.attrs.get("dilation", (1, 1))
    oh, _ = out_size_and_pad(x.shape[1], w.shape[1], sh, dh, node.attrs["padding"])
    ow, _ = out_size_and_pad(x.shape[2], w.shape[2], sw, dw, node.attrs["padding"])
    return [(x.shape[0], oh, ow, w.shape[0])]


def reference(node: Node, p: ConvParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [requantize(accumulate(node, p, inputs), p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)]


def accumulate(node: Node, p: ConvParams, inputs: list[np.ndarray]) -> np.ndarray:
    """The int32 accumulators, bias included, before requantization (what an accelerator may stop at)."""
    x = inputs[0].astype(np.int64) + p.input_offset  # padding taps are skipped, i.e. contribute 0 after the offset
    win = zero_padded_windows(x, (p.out_h, p.out_w), (p.filter_h, p.filter_w), (p.stride_h, p.stride_w),
                              (p.dilation_h, p.dilation_w), (p.pad_top, p.pad_left))
    per_group = p.out_ch // p.groups
    w = p.weights.astype(np.int64)
    acc = np.concatenate([
        np.einsum("nyxijc,oijc->nyxo", win[..., g * p.filter_in_ch:(g + 1) * p.filter_in_ch],
                  w[g * per_group:(g + 1) * per_group])
        for g in range(p.groups)], axis=-1)
    return acc if p.bias is None else acc + p.bias


def emit(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    weights = em.const(p.weights, "weights")
    multiplier = em.const(p.multiplier, "multiplier")
    shift = em.const(p.shift, "shift")
    if p.folded_bias is not None:
        return CCall("mote_conv_1x1_s8", "mote_conv_1x1_params", {
            "pixels": p.batches * p.in_h * p.in_w, "in_ch": p.in_ch, "out_ch": p.out_ch,
            "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
            "weights": weights, "bias": em.const(p.folded_bias, "folded_bias"),
            "multiplier": multiplier, "shift": shift}, args)
    fields: dict[str, int | str] = {
        name: getattr(p, name) for name in (
            "batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "filter_in_ch",
            "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left", "input_offset",
            "output_offset", "act_min", "act_max")}
    fields.update(weights=weights, bias="NULL" if p.bias is None else em.const(p.bias, "bias"),
                  multiplier=multiplier, shift=shift)
    return CCall("mote_conv_s8", "mote_conv_params", fields, args)


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1] * w.shape[2] * w.shape[3]


OP = register(OpDef("conv2d", shape, prepare, reference, emit, macs, tflite=("CONV_2D",), accumulate=accumulate))
