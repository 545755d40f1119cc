"""The frame of the 3x3 depthwise kernels for scalar cores (the image or its transpose), and the packing of
mote_depthwise_conv_band_s8 (mote_depthwise_conv_band_s8.h): how each row of windows meets the frame's
columns (a padded first column, whole windows, a padded last column) and which rows share a filter
(bands: the same filter rows outside the input, the same distances between the rows read)."""

from __future__ import annotations

import zlib
from dataclasses import astuple, dataclass, field

import numpy as np

from mote.c_text import c_struct
from mote.ir import Node
from mote.ops.depthwise_params import DepthwiseParams, widened
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel

BANDS = 4  # MOTE_DEPTHWISE_BANDS


@dataclass(frozen=True)
class Frame:
    """The rows kernels' frame: the image, or its transpose when the output's columns are longer
    than its rows (the kernels walk rows, and each row has a set-up cost), with the steps of its rows
    and columns in the NHWC tensors."""
    in_h: int
    in_w: int
    out_h: int
    out_w: int
    stride_h: int
    stride_w: int
    pad_top: int
    pad_left: int
    in_row_step: int
    in_col_step: int
    out_row_step: int
    out_col_step: int
    weights: np.ndarray = field(compare=False)  # [3, 3, channels] in frame order

    def c_fields(self) -> dict[str, int]:
        return {name: value for name, value in vars(self).items() if name != "weights"}


def frame(p: DepthwiseParams) -> Frame:
    n = p.in_ch
    if p.out_h > p.out_w:
        return Frame(p.in_w, p.in_h, p.out_w, p.out_h, p.stride_w, p.stride_h, p.pad_left, p.pad_top, n,
                     p.in_w * n, n, p.out_w * n, p.weights.transpose(1, 0, 2))
    return Frame(p.in_h, p.in_w, p.out_h, p.out_w, p.stride_h, p.stride_w, p.pad_top, p.pad_left, p.in_w * n,
                 n, p.out_w * n, n, p.weights)


def window_columns(stride: int, pad_left: int, in_w: int, out_w: int) -> tuple[int, int] | None:
    """(count, pad_right) of a row of windows as the band kernel walks it, or None when its windows do
    not take that form: window j covers columns stride * j - pad_left .. + 2, pad_left 0 or 1 (only
    the first window's first column outside), `count` windows whole but for that, then pad_right (0
    or 1) windows whose last column is the first past the input and whose others are inside."""
    if stride not in (1, 2) or pad_left not in (0, 1):
        return None
    count = sum(1 for j in range(out_w) if stride * j - pad_left + 2 <= in_w - 1)  # a prefix: columns grow
    if out_w - count > 1 or (count < out_w and stride * count - pad_left + 2 != in_w):
        return None
    if stride == 1 and 1 - pad_left > in_w - 1:  # the columns read before the first window's last
        return None
    return count, out_w - count


def row_bands(f: Frame) -> list[dict[str, int]] | None:
    """The bands of rows (mote_depthwise_band fields), at most BANDS, or None: a window row whose filter
    rows are all outside the input, or more bands than that."""
    rows = []
    for oy in range(f.out_h):
        y0 = oy * f.stride_h - f.pad_top
        inside = [0 <= y0 + fy < f.in_h for fy in range(3)]
        if not any(inside):
            return None
        clip = sum(1 << fy for fy in range(3) if not inside[fy])
        # Three rows inside at the usual distances, one below or above the window's when it is cut.
        shift = max(-y0, 0) - max(y0 + 3 - f.in_h, 0)
        if f.in_h >= 3 and abs(shift) <= 1:
            ys = [y0 + shift + r for r in range(3)]
        else:
            first = next(y0 + fy for fy in range(3) if inside[fy])
            ys, shift = [y0 + fy if inside[fy] else first for fy in range(3)], 0
        rows.append({"rows": 1, "in_start": ys[0] * f.in_row_step, "d_mid": (ys[1] - ys[0]) * f.in_row_step,
                     "d_bottom": (ys[2] - ys[0]) * f.in_row_step, "out_start": oy * f.out_row_step,
                     "clip": clip, "shift": shift})
    bands: list[dict[str, int]] = []
    step = f.stride_h * f.in_row_step
    for row in rows:
        last = bands[-1] if bands else None
        if (last is not None and all(last[k] == row[k] for k in ("d_mid", "d_bottom", "clip", "shift"))
                and row["in_start"] == last["in_start"] + last["rows"] * step):
            last["rows"] += 1
        else:
            bands.append(dict(row))
    return bands if len(bands) <= BANDS else None


def band_fits(p: DepthwiseParams) -> str | None:
    """None when mote_depthwise_conv_band_s8 takes the layer (given a 3x3 filter, multiplier 1, no
    dilation and a folded bias), else why not."""
    if p.batches != 1:
        return "more than one image"
    f = frame(p)
    if window_columns(f.stride_w, f.pad_left, f.in_w, f.out_w) is None:
        return "stride across not 1 or 2, or padding across not at most one column a side"
    return None if row_bands(f) is not None else f"more than {BANDS} bands of rows"


FRAME_OUTPUTS = 9  # the most outputs a channel's frame may have for its own straight-line routine
FRAME_REACH = 6142  # the farthest input byte it reads from a channel's first, from two pointers
# A legacy uint8 layer's (int16 wide_weights): up to MobileNetV1's 6x6 frames, whose bands cost about 4.2
# instructions per MAC; its routine moves its pointers as its offsets grow (any reach). Such a routine is
# 4 to 5 KB of flash; int8 projects never get one.
WIDE_FRAME_OUTPUTS = 36
WIDE = 2  # the last field of a wide frame shape: its weights' bytes


def frame_shape(p: DepthwiseParams, wide: bool = False) -> tuple[int, ...] | None:
    """The frame's fields (Frame, without the weights) when the rv32 assembly may compute a channel's whole
    frame in one straight-line routine laid out for it (mote.targets.rv32.micro_depthwise_frame): a
    layer the band kernel takes, at most FRAME_OUTPUTS outputs, every input byte within FRAME_REACH, its
    weights' zero point 0 (the routines sum the raw weights). `wide`: p's weights are int16 (wide_weights):
    at most WIDE_FRAME_OUTPUTS outputs, any reach, the fields followed by WIDE."""
    if p.filter_offset != 0 or band_fits(p) is not None:
        return None
    f = frame(p)
    reach = (f.in_h - 1) * f.in_row_step + (f.in_w - 1) * f.in_col_step
    if f.out_h * f.out_w > (WIDE_FRAME_OUTPUTS if wide else FRAME_OUTPUTS) or (not wide and reach > FRAME_REACH):
        return None
    return (*astuple(f)[:-1], *((WIDE,) if wide else ()))


def frame_id(shape: tuple[int, ...] | None) -> int:
    """The params' frame_id for a frame shape (0: none): a checksum of its fields, never 0."""
    return 0 if shape is None else (zlib.crc32(repr(tuple(shape)).encode()) & 0x7FFFFFFF) | 1


def frame_taps(shape: tuple[int, ...]) -> list[tuple[int, list[tuple[int, int]], list[int]]]:
    """Per output of a frame shape (frame_shape): its byte offset from the channel's first output, the
    taps inside the input (weight index 3 * fy + fx, byte offset from the channel's first input) and the
    weight indices of the taps outside (they read the zero point)."""
    in_h, in_w, out_h, out_w, sh, sw, pad_top, pad_left, in_row, in_col, out_row, out_col = shape[:12]
    outputs = []
    for oy in range(out_h):
        for ox in range(out_w):
            inside, outside = [], []
            for fy in range(3):
                for fx in range(3):
                    y, x = oy * sh - pad_top + fy, ox * sw - pad_left + fx
                    if 0 <= y < in_h and 0 <= x < in_w:
                        inside.append((3 * fy + fx, y * in_row + x * in_col))
                    else:
                        outside.append(3 * fy + fx)
            outputs.append((oy * out_row + ox * out_col, inside, outside))
    return outputs


def band_shapes(p: DepthwiseParams) -> list[tuple[int, ...]]:
    """(stride across, column step, d_mid, d_bottom, pad_left, pad_right, in_row_step, out_row_step,
    out_col_step, span) of the bands of a layer the kernel takes, span the bytes from a row's first output
    to the padded last or past its end: what the rv32 assembly can lay out its row loops for when the
    project is built (mote.targets.rv32.micro_depthwise). Only the bands whose filter rows are all inside
    the input (the others are a row or two each, not worth their code in flash). A layer whose frame takes
    its own routine (frame_shape) has instead that one shape, 0 then the frame's fields (then WIDE for a
    legacy uint8 layer's int16 weights)."""
    wide = wide_params(p)
    small = frame_shape(wide, wide=True) if wide is not None else frame_shape(p)
    if small is not None:
        return [(0, *small)]
    f = frame(p)
    bands, columns = row_bands(f), window_columns(f.stride_w, f.pad_left, f.in_w, f.out_w)
    if bands is None or columns is None:
        return []
    return [(f.stride_w, f.in_col_step, b["d_mid"], b["d_bottom"], f.pad_left, columns[1],
             f.stride_h * f.in_row_step, f.out_row_step, f.out_col_step, columns[0] * f.out_col_step)
            for b in bands if not b["clip"]]


def pack_band(node: Node, p: DepthwiseParams, em: Emitter, wide: bool = False) -> CCall:
    """The kernel's call; `wide`: p's weights are a legacy uint8 layer's w - w_zero_point (in [-255, 255]),
    packed int16 into wide_weights."""
    x = node.inputs[0]
    assert x is not None and p.folded_bias is not None
    f = frame(p)
    columns, bands = window_columns(f.stride_w, f.pad_left, f.in_w, f.out_w), row_bands(f)
    assert columns is not None and bands is not None
    unused = {"rows": 0, "in_start": 0, "d_mid": 0, "d_bottom": 0, "out_start": 0, "clip": 0, "shift": 0}
    bands += [unused] * (BANDS - len(bands))
    return CCall("mote_depthwise_conv_band_s8", "mote_depthwise_conv_band_params", {
        "channels": p.in_ch, "zero_point": -p.input_offset, "in_row_step": f.stride_h * f.in_row_step,
        "col_step": f.in_col_step, "out_row_step": f.out_row_step, "out_col_step": f.out_col_step,
        "stride": f.stride_w, "pad_left": f.pad_left, "count": columns[0], "pad_right": columns[1],
        "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max,
        "weights": "NULL" if wide else em.const(f.weights.reshape(9, -1).T.copy(), "weights"),
        "folded_bias": em.const(p.folded_bias, "folded_bias"),
        "output_stage": output_stage(em, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max),
        "bands": "{" + ", ".join(c_struct(b) for b in bands) + "}",
        "wide_weights": (em.const(np.ascontiguousarray(f.weights.reshape(9, -1).T, np.int16), "weights") if wide
                         else "NULL"),
        "frame_id": frame_id(frame_shape(p, wide))},
        [em.tensor(x), em.tensor(node.outputs[0])])


def wide_params(p: DepthwiseParams) -> DepthwiseParams | None:
    """A legacy uint8 layer whose weights have a zero point (mote.ops.filter_offset) as the kernel takes it:
    its weights minus that zero point, in wide_weights; None for an int8 layer."""
    return widened(p) if p.filter_offset else None


def _pack(node: Node, p: DepthwiseParams, em: Emitter) -> CCall:
    wide = wide_params(p)
    return pack_band(node, wide, em, wide=True) if wide is not None else pack_band(node, p, em)


def _accepts(node: Node, p: DepthwiseParams) -> str | None:
    if (p.filter_h, p.filter_w) != (3, 3) or p.depth_multiplier != 1 or (p.dilation_h, p.dilation_w) != (1, 1):
        return "not 3x3, depth multiplier 1, undilated"
    if p.filter_offset:
        return "accumulator may exceed int32" if widened(p) is None else band_fits(p)
    return "accumulator may exceed int32" if p.folded_bias is None else band_fits(p)


KERNEL = Kernel("mote_depthwise_conv_band_s8", frozenset({Core.SCALAR}), _pack, _accepts,
                twins=("mote_depthwise_band_s8",))
