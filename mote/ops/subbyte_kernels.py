"""Kernels for sub-byte weights (Tensor.bits 4 or 2: TFLite INT4/INT2 and ONNX INT4/UINT4 weights, or
`mote quantize --weight-bits`): the weights stay packed in flash, 8 / bits values a byte, and the kernel
unpacks them as it runs, so the layer's weight bytes shrink by that factor.

  mote_fully_connected_packed_s8  FULLY_CONNECTED, any core: each weight row packed from a byte boundary, read
                                  as biased values (one XOR a byte), the bias's share subtracted once per input
                                  row (mote_fully_connected_packed_s8.h);
  mote_conv_packed_s8             CONV_2D, any core, any geometry (mote_conv_s8's): each output channel's filter
                                  packed from a byte boundary, unpacked into scratch four channels at a time;
  mote_depthwise_conv_packed_s8   DEPTHWISE_CONV_2D, any core, any geometry (mote_depthwise_conv_s8's): each
                                  output channel's taps packed together from a byte boundary, unpacked into scratch
                                  four channels at a time.

Both lead their op's int8 records and are no candidate for a layer whose weights are 8 bits wide (Kernel.kind),
so a model without sub-byte weights never meets them, not even in `--explain`. Packing is mote.ir.subbyte's
(TFLite's order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mote.c_text import c_struct
from mote.ir import DType, Node, subbyte
from mote.ops.conv2d_kernels import _accepts_ring, quad_output_stage, ring_width, to_quads
from mote.ops.conv2d_params import GEOMETRY
from mote.ops.output_stage import output_multipliers
from mote.ops.pair_groups import ring_kinds
from mote.ops.registry import CCall, Core, Emitter, Kernel


def weight_bits(node: Node) -> int:
    """The declared width of the layer's weights (input 1): 8 unless the tensor says 4 or 2."""
    w = node.inputs[1] if len(node.inputs) > 1 else None
    return 8 if w is None else w.bits


def packed_rows(weights: np.ndarray, bits: int, where: str) -> np.ndarray:
    """weights [rows, ...]: each row (its values in C order) packed from a byte boundary, as uint8
    [rows * row_bytes]."""
    rows = np.asarray(weights).reshape(weights.shape[0], -1)
    return np.frombuffer(b"".join(subbyte.pack(r, bits, where) for r in rows), np.uint8).copy()


def narrow(node: Node) -> bool:
    """A layer whose weights are narrower than 8 bits: the only kind these kernels serve."""
    return weight_bits(node) < 8


def _accepts(node: Node, p: Any) -> str | None:
    if getattr(p, "filter_offset", 0) and node.op != "fully_connected":
        return "weights with a zero point (legacy uint8)"
    if getattr(p, "output_rows", None) is not None:
        return "an output stage other than TFLite's requantization"
    return None


def _stage(p: Any, em: Emitter) -> dict[str, int | str]:
    """The output stage: the Q31 multipliers, each shift as a left and a right multiplier (mote_output_stage.h)."""
    left_mul, right_mul = output_multipliers(p.shift)
    return {"multiplier": em.const(p.multiplier, "multiplier"), "left_mul": em.const(left_mul, "left_mul"),
            "right_mul": em.const(right_mul, "right_mul")}


def packed_words(weights: np.ndarray, bits: int, where: str) -> np.ndarray:
    """weights [rows, depth] as biased fields (value + 2^(bits - 1)), each row _row_words words, the rows of
    whole blocks of four with their words interleaved, the last rows % 4 rows after them one by one: uint32
    [rows * row_words] (mote_fully_connected_packed_s8.h)."""
    rows = np.asarray(weights, np.int64).reshape(weights.shape[0], -1)
    per_word = 32 // bits
    subbyte.check_values(rows, bits, where)
    n, depth = rows.shape
    biased = np.zeros((n, _row_words(depth, bits) * per_word), np.int64)
    biased[:, :depth] = rows + (1 << (bits - 1))
    words = (biased.reshape(n, -1, per_word) << (bits * np.arange(per_word))).sum(axis=-1).astype(np.uint32)
    whole = n // 4 * 4
    blocks = words[:whole].reshape(-1, 4, words.shape[1]).transpose(0, 2, 1)
    return np.concatenate([blocks.reshape(-1), words[whole:].reshape(-1)])


def _row_words(depth: int, bits: int) -> int:
    """mote_fully_connected_packed_s8's words a row: int4 an even number (its loops take two words a step), int2
    any."""
    return 2 * -(-depth * bits // 64) if bits == 4 else -(-depth * bits // 32)


def _pack_fully_connected(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    bits = weight_bits(node)
    left_mul, right_mul = output_multipliers(p.shift)
    fields: dict[str, int | str] = {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth, "bits": bits,
        "row_words": _row_words(p.accum_depth, bits), "filter_offset": p.filter_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(packed_words(p.weights, bits, f"node {node.name!r}"), "packed_weights"),
        "bias": em.const(p.folded_bias, "folded_bias"), "multiplier": em.const(p.multiplier, "multiplier"),
        "left_mul": em.const(left_mul, "left_mul"), "right_mul": em.const(right_mul, "right_mul")}
    return CCall("mote_fully_connected_packed_s8", "mote_fully_connected_packed_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _fully_connected_scratch(node: Node, p: Any) -> int:
    bits = weight_bits(node)
    return 4 * _row_words(p.accum_depth, bits) * (16 // bits)  # the input words


def _pack_conv(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    bits = weight_bits(node)
    fields: dict[str, int | str] = {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "filter_in_ch": p.filter_in_ch,
        "bits": bits,
        "channel_bytes": subbyte.packed_size(p.taps, bits), "input_offset": p.input_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(packed_rows(p.weights, bits, f"node {node.name!r}"), "packed_weights"),
        "bias": "NULL" if p.bias is None else em.const(p.bias, "bias"),
        **_stage(p, em)}
    return CCall("mote_conv_packed_s8", "mote_conv_packed_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _pack_ring(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    bits, quads, pairs = weight_bits(node), -(-p.out_ch // 4), p.in_ch // 2
    padded = to_quads(p.weights)  # [quads * 4][filter_h][3][in_ch]
    # [quad][fy][pair][fx][channel of the quad][2]: the order of mote_conv_ring_s8's pair words, value by value
    values = padded.reshape(quads, 4, p.filter_h, 3, pairs, 2).transpose(0, 2, 4, 3, 1, 5)
    fields: dict[str, int | str] = {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "width": ring_width(p), "bits": bits,
        "input_offset": p.input_offset, "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max,
        "weights": em.const(np.frombuffer(subbyte.pack(values.reshape(-1), bits, f"node {node.name!r}"),
                                          np.uint8).copy(), "packed_weights"),
        "kinds": em.const(_two_bit_rows(ring_kinds(padded, p.stride_w).reshape(quads, -1)), "kinds"),
        "bias": em.const(to_quads(p.folded.astype(np.int32)), "folded_bias"),
        "output_stage": quad_output_stage(em, p), "dot": f"mote_dot_ring_s{p.stride_w}_4x4_s8"}
    return CCall("mote_conv_packed_ring_s8", "mote_conv_packed_ring_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


# Below this many output channels the window gathered for each pixel costs more than mote_conv_packed_s8's
# register blocking saves (rv32: a 3x3 convolution of 3 channels into 8 takes 8.1 instructions a MAC here, 7.2 there;
# into 16, 6.4 here, 7.1 there).
ROWS_MIN_CHANNELS = 16


def _pack_rows(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    bits = weight_bits(node)
    fields: dict[str, int | str] = {
        "geometry": c_struct({name: getattr(p, name) for name in GEOMETRY}), "bits": bits,
        "row_words": _row_words(p.taps, bits), "input_offset": p.input_offset, "output_offset": p.output_offset,
        "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(packed_words(p.weights.reshape(p.out_ch, -1), bits, f"node {node.name!r}"),
                            "packed_weights"),
        "bias": em.const(p.folded.astype(np.int32), "folded_bias"), **_stage(p, em)}
    return CCall("mote_conv_packed_rows_s8", "mote_conv_packed_rows_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _accepts_rows(node: Node, p: Any) -> str | None:
    if reason := _accepts(node, p):
        return reason
    if p.groups != 1:
        return "groups != 1"
    if p.out_ch < ROWS_MIN_CHANNELS:
        return f"fewer than {ROWS_MIN_CHANNELS} output channels to share a pixel's gathered window"
    bound = int(np.abs(np.asarray(p.folded, np.int64)).max(initial=0)) + p.taps * 128 * 16
    return "accumulator may exceed int32" if bound >= 2**31 else None


def _rows_scratch(node: Node, p: Any) -> int:
    bits = weight_bits(node)
    return -(-p.taps // 8) * 8 + 4 * _row_words(p.taps, bits) * (16 // bits)  # the window, its input words


def _two_bit_rows(values: np.ndarray) -> np.ndarray:
    """values [rows, n] in [0, 3], each row four a byte from a byte boundary, the first in the lowest bits: uint8
    [rows * ceil(n / 4)]."""
    rows, n = values.shape
    padded = np.zeros((rows, -(-n // 4) * 4), np.int64)
    padded[:, :n] = values
    return (padded.reshape(rows, -1, 4) << np.array([0, 2, 4, 6])).sum(axis=-1).astype(np.uint8).reshape(-1)


def _accepts_ring_packed(node: Node, p: Any) -> str | None:
    return _accepts(node, p) or _accepts_ring(node, p)


def _ring_scratch(node: Node, p: Any) -> int:
    steps = p.filter_h * (p.in_ch // 2)
    return 8 * p.filter_h + 4 * steps * ring_width(p) + 4 * 13 * steps


def _pack_depthwise(node: Node, p: Any, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    bits = weight_bits(node)
    taps = p.filter_h * p.filter_w
    channels = p.weights.reshape(taps, -1).T  # [out_ch][filter_h * filter_w]: each channel's taps together
    fields: dict[str, int | str] = {
        **{name: getattr(p, name) for name in ("batches", "in_h", "in_w", "in_ch", "out_h", "out_w",
                                               "depth_multiplier", "filter_h", "filter_w", "stride_h", "stride_w",
                                               "dilation_h", "dilation_w", "pad_top", "pad_left")},
        "bits": bits, "channel_bytes": subbyte.packed_size(taps, bits), "input_offset": p.input_offset,
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": em.const(packed_rows(channels, bits, f"node {node.name!r}"), "packed_weights"),
        "bias": "NULL" if p.bias is None else em.const(p.bias, "bias"),
        **_stage(p, em)}
    return CCall("mote_depthwise_conv_packed_s8", "mote_depthwise_conv_packed_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _depthwise_scratch(node: Node, p: Any) -> int:
    return 4 * int(p.filter_h * p.filter_w)  # four output channels' filters, unpacked


def _conv_scratch(node: Node, p: Any) -> int:
    return 4 * int(p.taps)  # four output channels' filters, unpacked


INT8 = frozenset({DType.INT8})
RING_KERNEL = Kernel("mote_conv_packed_ring_s8", frozenset({Core.SCALAR}), _pack_ring, accepts=_accepts_ring_packed,
                     scratch_bytes=_ring_scratch, twins=("mote_dot_ring_s1_4x4_s8", "mote_dot_ring_s2_4x4_s8"),
                     scratch_why="a ring of input rows as channel pairs, four output channels' unpacked filters",
                     dtypes=INT8, kind=narrow)
ROWS_KERNEL = Kernel("mote_conv_packed_rows_s8", frozenset(Core), _pack_rows, accepts=_accepts_rows,
                     scratch_bytes=_rows_scratch, scratch_why="an output pixel's window and its input words",
                     dtypes=INT8, kind=narrow)
FULLY_CONNECTED_KERNEL = Kernel("mote_fully_connected_packed_s8", frozenset(Core), _pack_fully_connected,
                                accepts=_accepts, scratch_bytes=_fully_connected_scratch,
                                scratch_why="the input row as words of two values", dtypes=INT8, kind=narrow)
CONV_KERNEL = Kernel("mote_conv_packed_s8", frozenset(Core), _pack_conv, accepts=_accepts,
                     scratch_bytes=_conv_scratch, scratch_why="four output channels' unpacked filters", dtypes=INT8,
                     kind=narrow)
DEPTHWISE_KERNEL = Kernel("mote_depthwise_conv_packed_s8", frozenset(Core), _pack_depthwise, accepts=_accepts,
                          scratch_bytes=_depthwise_scratch, scratch_why="four output channels' unpacked filters",
                          dtypes=INT8, kind=narrow)
