"""CONV_2D: int8 NHWC convolution with per-channel requantization, optionally grouped.

Bit-exact with TFLite Micro's ConvPerChannel: each output is
    clamp(requantize(bias[oc] + sum over in-bounds taps of w * (x + input_offset)) + output_offset)
where out-of-bounds taps (padding) contribute nothing. The filter zero point must be 0 (TFLM's
int8 conv ignores it, so a nonzero one would silently change the meaning of the weights).

Kernels (`prepare` picks one, in this order; each is bit-exact with the general one):
  mote_conv_1x1_s8     1x1, stride 1, one group: a matrix product over the pixels, in place.
  mote_conv_im2col_s8  one group, filter rows too short to vectorize (filter_w * in_ch < 16, e.g. a
                       first layer on RGB or audio features) and a window of at most
                       IM2COL_MAX_TAPS taps: windows gathered four at a time into a stack buffer,
                       padding filled with the input zero point.
  mote_conv_rows_s8    one group: dot products along the contiguous input rows under each filter row.
  mote_conv_s8         anything else (groups, or accumulators too close to the int32 limit).
On a scalar core (Core.SCALAR: rv32imc), `specialize` replaces the first three with
  mote_conv_ring_s8    three filter columns at stride 1 or 2 across, channels in pairs: windows read
                       in place from a ring of the input rows they need, packed two channels a word;
  mote_conv_blocked_s8 any other: windows packed into scratch (same padding rule as im2col).
Both keep four pixels by four output channels in registers, two taps per multiply (weights in
[-127, 127]) and four per rounding where the weights allow (mote.ops.pair_groups), with weights
packed at compile time: what the vectorized kernels' long dot products do not suit.
The fast kernels start from biases with input_offset * sum(weights) folded in at compile time and
an output stage that vectorizes (mote_output_stage.h), hence the accumulator bounds checked here.

The helpers here (multipliers, zero-padded windows, requantization, bounds) are shared by
depthwise_conv2d and fully_connected.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mote.codegen.c_text import c_struct
from mote.errors import UnsupportedError
from mote.ir import Node, Tensor
from mote.ops.accumulator_range import check_accumulator_range
from mote.ops.common import activation_range, out_size_and_pad
from mote.ops.output_stage import output_multipliers, output_stage
from mote.ops.pair_groups import pair_runs, ring_kinds
from mote.ops.registry import CCall, Core, Emitter, OpDef, Overlap, register
from mote.ops.window_checks import check_conv2d
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


def max_abs(a: np.ndarray | None) -> int:
    return 0 if a is None else int(np.abs(a.astype(np.int64)).max(initial=0))


def fold_bias(bias: np.ndarray | None, weights: np.ndarray, input_offset: int) -> np.ndarray:
    """int64 bias[oc] + input_offset * sum(weights[oc]): the bias of a window with no padding taps,
    whose inner loop then multiplies the raw int8 input. weights: [out_ch, ...]."""
    channels = weights.shape[0]
    base = np.zeros(channels, np.int64) if bias is None else bias.astype(np.int64)
    return base + input_offset * weights.reshape(channels, -1).astype(np.int64).sum(axis=1)


def interior(out_size: int, in_size: int, stride: int, pad: int, extent: int) -> tuple[int, int]:
    """The output range [lo, hi) whose windows (`extent` input pixels) lie wholly inside the input."""
    lo = -(-pad // stride)  # first o with o * stride - pad >= 0
    hi = (in_size - extent + pad) // stride + 1 if in_size - extent + pad >= 0 else 0  # o * stride - pad + extent <= in
    lo, hi = min(lo, out_size), min(hi, out_size)
    return lo, max(lo, hi)


IM2COL_MAX_TAPS = 256  # MOTE_CONV_IM2COL_MAX_TAPS in mote_conv_im2col_s8.h: 4 windows of this on the stack


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
    kernel: str = "mote_conv_s8"  # the C function emit calls
    window_bias: np.ndarray | None = None  # int32 [out_ch], as folded_bias: for the im2col and rows kernels

    @property
    def groups(self) -> int:
        return self.in_ch // self.filter_in_ch

    @property
    def taps(self) -> int:
        return self.filter_h * self.filter_w * self.filter_in_ch

    @property
    def tap_pairs(self) -> int:
        """The blocked kernel's window in tap pairs: taps rounded up to a multiple of 4, halved."""
        return -(-self.taps // 4) * 2

    @property
    def padded_taps(self) -> int:
        """The im2col kernel's window length: taps rounded up to a multiple of 16."""
        return -(-self.taps // 16) * 16


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
    check_accumulator_range(node, weights.reshape(oc, -1), bias, input_offset, multiplier, shift, out.zero_point)
    params = ConvParams(n, h, wd, c, oh, ow, oc, fh, fw, fic, sh, sw, dh, dw, pad_top, pad_left, input_offset,
                        out.zero_point, act_min, act_max, weights, bias, multiplier, shift, None)
    return choose_kernel(params)


def choose_kernel(p: ConvParams) -> ConvParams:
    """The fastest kernel whose accumulators provably stay inside int32 (see the module docstring)."""
    if p.groups != 1:
        return p
    folded = fold_bias(p.bias, p.weights, p.input_offset)
    # Tap-complete windows: the folded bias plus taps products of raw int8 values, each at most 2^14.
    complete_ok = fits_int32(max_abs(folded) + p.taps * 128 * 128)
    if p.filter_h == p.filter_w == 1 and p.stride_h == p.stride_w == 1:  # no padding; dilation is moot
        if complete_ok:
            return replace(p, folded_bias=folded.astype(np.int32), kernel="mote_conv_1x1_s8")
        return p
    if not complete_ok:
        return p
    short_rows = (p.filter_w * p.in_ch if p.dilation_w == 1 else p.in_ch) < 16
    if short_rows and p.padded_taps <= IM2COL_MAX_TAPS:  # padding taps read the zero point: complete windows
        return replace(p, window_bias=folded.astype(np.int32), kernel="mote_conv_im2col_s8")
    # The rows kernel's border columns add taps terms of magnitude at most 255 * 128 to the plain bias;
    # its other pixels start from the bias plus input_offset * the weights of the filter rows inside
    # the input, and add products of raw int8 values: 2^14 + 2^14 per tap at most.
    if fits_int32(max_abs(p.bias) + p.taps * 2 * 128 * 128):
        return replace(p, window_bias=folded.astype(np.int32), kernel="mote_conv_rows_s8")
    return p


def specialize(node: Node, p: ConvParams, core: Core) -> ConvParams:
    """On a scalar core, every convolution with complete windows runs register-blocked (its paired
    products need weights in [-127, 127], as TFLite's int8 spec has them); on a host with VNNI, every
    ungrouped one whose unsigned-input accumulators fit int32 uses its dot products."""
    if (core is Core.SCALAR and p.kernel in ("mote_conv_1x1_s8", "mote_conv_im2col_s8", "mote_conv_rows_s8")
            and int(p.weights.min(initial=0)) >= -127):
        folded = p.folded_bias if p.window_bias is None else p.window_bias
        return replace(p, window_bias=folded, kernel="mote_conv_ring_s8" if ring_fits(p) else "mote_conv_blocked_s8")
    if core is Core.VNNI and p.groups == 1:
        unsigned = fold_bias(p.bias, p.weights, p.input_offset - 128)  # windows gathered as x + 128
        if fits_int32(max_abs(unsigned) + p.taps * 255 * 128):
            return replace(p, window_bias=unsigned.astype(np.int32), kernel="mote_conv_vnni_s8")
    return p


def ring_fits(p: ConvParams) -> bool:
    """Whether mote_conv_ring_s8 takes the convolution: three filter columns, stride 1 or 2 across,
    no dilation, channels in whole pairs."""
    return (p.filter_w == 3 and p.stride_w in (1, 2) and p.dilation_h == p.dilation_w == 1 and p.in_ch % 2 == 0
            and p.groups == 1)


def ring_width(p: ConvParams) -> int:
    """mote_conv_ring_s8's plane columns: the input and its left padding, and every column the last
    block of four output pixels reads."""
    return max(p.pad_left + p.in_w, (-(-p.out_w // 4) * 4 - 1) * p.stride_w + 3)


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


GEOMETRY = ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w", "out_ch", "filter_h", "filter_w", "stride_h",
            "stride_w", "dilation_h", "dilation_w", "pad_top", "pad_left")
QUANT = ("input_offset", "output_offset", "act_min", "act_max")


def emit(node: Node, p: ConvParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    if p.kernel == "mote_conv_blocked_s8":
        assert p.window_bias is not None
        quads, pairs = -(-p.out_ch // 4), p.tap_pairs
        packed = to_quads(np.pad(p.weights.reshape(p.out_ch, -1), ((0, 0), (0, 2 * pairs - p.taps))))
        interleaved = pair_words(packed).reshape(quads, 4, pairs).transpose(0, 2, 1)  # [quad][pair][channel]
        runs, run_start = pair_runs(packed)
        return CCall(p.kernel, "mote_conv_blocked_params", {
            "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}),
            **{name: getattr(p, name) for name in QUANT}, "taps": p.taps, "pairs": pairs,
            "weights": em.const(np.ascontiguousarray(interleaved), "weights"),
            "bias": em.const(to_quads(p.window_bias), "folded_bias"),
            "output_stage": quad_output_stage(em, p), "runs": em.const(runs, "pair_runs"),
            "run_start": em.const(run_start, "run_start"),
            "reverse": int(pointwise(p) and p.out_ch > p.in_ch)}, args)
    if p.kernel == "mote_conv_ring_s8":
        assert p.window_bias is not None
        quads, pairs = -(-p.out_ch // 4), p.in_ch // 2
        packed = to_quads(p.weights)
        words = pair_words(packed)  # [oc][fy][fx][jc]
        steps = words.reshape(quads, 4, p.filter_h, 3, pairs).transpose(0, 2, 4, 3, 1).reshape(quads, p.filter_h,
                                                                                               pairs, 12)
        kinds = ring_kinds(packed, p.stride_w)[..., None]  # each step's weights after its kind
        ring = np.concatenate([kinds, steps], axis=-1).astype(np.int32)
        return CCall(p.kernel, "mote_conv_ring_params", {
            "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "width": ring_width(p),
            **{name: getattr(p, name) for name in QUANT},
            "weights": em.const(np.ascontiguousarray(ring), "weights"),
            "bias": em.const(to_quads(p.window_bias), "folded_bias"), "output_stage": quad_output_stage(em, p)}, args)
    multiplier = em.const(p.multiplier, "multiplier")
    if p.kernel != "mote_conv_s8":
        left_mul, right_mul = output_multipliers(p.shift)
        stage = {"multiplier": multiplier, "left_mul": em.const(left_mul, "left_mul"),
                 "right_mul": em.const(right_mul, "right_mul")}
    if p.kernel == "mote_conv_1x1_s8":
        assert p.folded_bias is not None
        return CCall(p.kernel, "mote_conv_1x1_params", {
            "pixels": p.batches * p.in_h * p.in_w, "in_ch": p.in_ch, "out_ch": p.out_ch,
            "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
            "weights": em.const(p.weights, "weights"), "bias": em.const(p.folded_bias, "folded_bias"), **stage}, args)
    fields: dict[str, int | str] = {"geometry": c_struct({name: getattr(p, name) for name in GEOMETRY})}
    if p.kernel == "mote_conv_vnni_s8":
        assert p.window_bias is not None
        ch4, oc16 = -(-p.in_ch // 4) * 4, -(-p.out_ch // 16) * 16
        taps4 = p.filter_h * p.filter_w * ch4
        packed = np.zeros((oc16, p.filter_h, p.filter_w, ch4), np.int8)  # channels padded to whole words
        packed[:p.out_ch, :, :, :p.in_ch] = p.weights
        blocks = packed.reshape(oc16 // 16, 16, taps4 // 4, 4).transpose(0, 2, 1, 3)  # [block][group][lane][4]
        bias = np.zeros(oc16, np.int32)
        bias[:p.out_ch] = p.window_bias
        fields.update({name: getattr(p, name) for name in QUANT})
        padded_h, padded_w = vnni_plane(p)
        fields.update(in_ch4=ch4, taps4=taps4, padded_h=padded_h, padded_w=padded_w, out_ch16=oc16,
                      weights=em.const(np.ascontiguousarray(blocks), "weights"), bias=em.const(bias, "unsigned_bias"),
                      multiplier=multiplier, shift=em.const(p.shift, "shift"))
        return CCall(p.kernel, "mote_conv_vnni_params", fields, args)
    if p.kernel == "mote_conv_im2col_s8":
        assert p.window_bias is not None
        # Each filter as one row of taps, zero-padded to a multiple of 16 like the gathered windows.
        packed = np.zeros((p.out_ch, p.padded_taps), np.int8)
        packed[:, :p.taps] = p.weights.reshape(p.out_ch, -1)
        fields.update({name: getattr(p, name) for name in QUANT})
        fields.update(taps=p.taps, padded_taps=p.padded_taps, weights=em.const(packed, "weights"),
                      bias=em.const(p.window_bias, "folded_bias"), **stage)
        return CCall(p.kernel, "mote_conv_im2col_params", fields, args)
    if p.kernel == "mote_conv_rows_s8":
        assert p.window_bias is not None
        x_lo, x_hi = interior(p.out_w, p.in_w, p.stride_w, p.pad_left, (p.filter_w - 1) * p.dilation_w + 1)
        bias = np.zeros(p.out_ch, np.int32) if p.bias is None else p.bias
        # input_offset * the sum of each filter row: what a window loses with a row in the padding.
        row_sums = p.input_offset * p.weights.astype(np.int64).sum(axis=(2, 3)).T  # [filter_h, out_ch]
        fields.update(interior_x0=x_lo, interior_x1=x_hi)
        fields.update({name: getattr(p, name) for name in QUANT})
        fields.update(weights=em.const(p.weights, "weights"), bias=em.const(bias, "bias"),
                      folded_bias=em.const(p.window_bias, "folded_bias"),
                      row_sums=em.const(row_sums.astype(np.int32), "row_sums"), **stage)
        return CCall(p.kernel, "mote_conv_rows_params", fields, args)
    fields.update({name: getattr(p, name) for name in ("filter_in_ch", *QUANT)})
    fields.update(weights=em.const(p.weights, "weights"), bias="NULL" if p.bias is None else em.const(p.bias, "bias"),
                  multiplier=multiplier, shift=em.const(p.shift, "shift"))
    return CCall("mote_conv_s8", "mote_conv_params", fields, args)


def to_quads(a: np.ndarray) -> np.ndarray:
    """Per-output-channel values (axis 0) for the scalar kernels, whose blocks run four channels at a
    time: zeros appended up to a whole set of four (zero filters, bias and multipliers give outputs
    nobody keeps)."""
    a = np.asarray(a)
    return np.pad(a, [(0, -len(a) % 4)] + [(0, 0)] * (a.ndim - 1))


def pair_words(taps: np.ndarray) -> np.ndarray:
    """Taps 2k and 2k + 1 along the last axis as one word, w0 + w1 * 2^16 (mote_pair_dot), int32."""
    taps = np.asarray(taps, np.int64)
    return (taps[..., 0::2] + taps[..., 1::2] * 65536).astype(np.int32)


def quad_output_stage(em: Emitter, p: ConvParams) -> str:
    """The output stage of the scalar kernels: rows up to a whole set of four channels."""
    return output_stage(em, to_quads(p.multiplier), to_quads(p.shift), p.output_offset, p.act_min, p.act_max)


def vnni_plane(p: ConvParams) -> tuple[int, int]:
    """The VNNI kernel's padded image, rows by pixels: every window inside it, those of the missing
    pixels of a row's last block of four too."""
    last_x = -(-p.out_w // 4) * 4 - 1
    return (max(p.pad_top + p.in_h, (p.out_h - 1) * p.stride_h + (p.filter_h - 1) * p.dilation_h + 1),
            max(p.pad_left + p.in_w, last_x * p.stride_w + (p.filter_w - 1) * p.dilation_w + 1))


def macs(node: Node) -> int:
    w = node.inputs[1]
    assert w is not None
    return node.outputs[0].size * w.shape[1] * w.shape[2] * w.shape[3]


def scratch_bytes(node: Node, p: ConvParams) -> int:
    if p.kernel == "mote_conv_vnni_s8":
        padded_h, padded_w = vnni_plane(p)
        return padded_h * padded_w * -(-p.in_ch // 4) * 4
    if p.kernel == "mote_conv_ring_s8":
        return 8 * p.filter_h + 4 * p.filter_h * (p.in_ch // 2) * ring_width(p)
    return 16 * p.tap_pairs if p.kernel == "mote_conv_blocked_s8" else 0


def overlap(node: Node, p: ConvParams) -> list[tuple[int, Overlap]]:
    """How the scalar kernels let the output share bytes with the input (mote.memory.arena). The ring
    kernel writes a row of outputs once the input rows its windows need are packed: the earlier ones
    are free. The blocked kernel at 1x1 and stride 1 writes a block of four pixels once it has read
    theirs: forwards when a pixel's output is no larger than its input, else backwards."""
    if p.kernel == "mote_conv_ring_s8" and p.batches == 1:
        in_row, out_row = p.in_w * p.in_ch, p.out_w * p.out_ch
        read = [oy * p.stride_h - p.pad_top + p.filter_h for oy in range(p.out_h)]  # input rows read before row oy
        bounds = [r * in_row - (oy + 1) * out_row for oy, r in enumerate(read) if r < p.in_h]
        return [(0, Overlap(at_most=min(bounds, default=p.out_h * out_row)))]
    if p.kernel == "mote_conv_blocked_s8" and pointwise(p):
        pixels, grow = p.batches * p.out_h * p.out_w, p.out_ch - p.in_ch
        if pixels <= 4:
            return [(0, Overlap(at_most=pixels * p.out_ch))]
        return [(0, Overlap(at_least=-4 * grow) if grow > 0 else Overlap(at_most=-4 * grow))]
    return []


def pointwise(p: ConvParams) -> bool:
    """1x1 at stride 1: a pixel's window is its own channels (the blocked kernel reads them in place)."""
    return p.filter_h == p.filter_w == 1 and p.stride_h == p.stride_w == 1


OP = register(OpDef("conv2d", shape, prepare, reference, emit, macs, tflite=("CONV_2D",), accumulate=accumulate,
                    scratch_bytes=scratch_bytes, specialize=specialize, overlap=overlap, check=check_conv2d))
