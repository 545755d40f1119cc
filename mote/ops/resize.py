"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR of NHWC tensors to a constant [height, width], as TFLite
Micro's reference kernels compute them. Which input rows and columns (and, bilinear, with what weights)
each output row and column reads is computed at compile time, in float32 as the interpreter does; the C
kernels then read the tables.

  nearest:  scale = in / out (align_corners: (in - 1) / (out - 1)); source = min(floor((i + offset) * scale),
            in - 1) (align_corners: round half away), offset 0.5 with half_pixel_centers (then at least 0).
            Bytes are copied (float32, int8, int16).
  bilinear, float32: y = (i + 0.5) * scale - 0.5 (half_pixel_centers) or i * scale; y0 = max(floor(y), 0),
            y1 = min(ceil(y), in - 1); out = a (1 - dy)(1 - dx) + b dy (1 - dx) + c (1 - dy) dx + d dy dx + 0,
            multiplied and summed left to right, dy = y - y0 (likewise x).
  bilinear, int8: the same in fixed point with 10 fractional bits (scale_10 rounded, C's truncating
            divisions), the four products summed in int64 and divided by 2^20, halves away from zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

F32 = np.float32


@dataclass(frozen=True, eq=False)
class Axis:
    """One axis of the resize: per output position, the input positions read and their weights."""

    low: np.ndarray  # int32 [out]
    high: np.ndarray  # int32 [out] (bilinear)
    weight: np.ndarray  # float32 dy (bilinear float) or int32 y_10 (bilinear int8)
    complement: np.ndarray  # float32 1 - dy (bilinear float)


@dataclass(frozen=True, eq=False)
class ResizeParams:
    batches: int
    in_h: int
    in_w: int
    channels: int
    out_h: int
    out_w: int
    rows: Axis
    cols: Axis
    element_bytes: int


def _size(node: Node) -> tuple[int, int]:
    s = checks.present(node, 1, "size")
    checks.dtype(node, s, "size", DType.INT32)
    checks.constant(node, s, "size")
    values = np.asarray(s.data).reshape(-1)
    if values.size != 2 or np.any(values < 1):
        raise checks.fail(node, f"the size must be two positive numbers [height, width], got {values.tolist()}")
    return int(values[0]), int(values[1])


def check(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    dtypes = (DType.FLOAT32, DType.INT8, DType.INT16) if node.op == "resize_nearest_neighbor" else \
        (DType.FLOAT32, DType.INT8)
    checks.dtype(node, x, "input", *dtypes)
    checks.rank(node, x, "input", 4)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    _size(node)
    align, half = attr(node, "align_corners"), attr(node, "half_pixel_centers")
    if not isinstance(align, bool) or not isinstance(half, bool):
        raise checks.fail(node, "attributes align_corners and half_pixel_centers must be true or false")
    if align and half and node.op == "resize_bilinear":
        raise checks.fail(node, "align_corners and half_pixel_centers together: TFLite Micro's bilinear resize "
                                "takes one or the other")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [(x.shape[0], *_size(node), x.shape[3])]


def _scale(in_size: int, out_size: int, align: bool) -> np.float32:
    return F32(in_size - 1) / F32(out_size - 1) if align and out_size > 1 else F32(in_size) / F32(out_size)


def _round_away(v: np.ndarray) -> np.ndarray:
    return np.sign(v) * np.floor(np.abs(v) + F32(0.5))


def _nearest(in_size: int, out_size: int, align: bool, half: bool) -> Axis:
    i = np.arange(out_size, dtype=F32)
    v = ((i + F32(0.5 if half else 0.0)) * _scale(in_size, out_size, align)).astype(F32)
    source = np.minimum((_round_away(v) if align else np.floor(v)).astype(np.int64), in_size - 1)
    if half:
        source = np.maximum(source, 0)
    empty = np.zeros(0, F32)
    return Axis(source.astype(np.int32), source.astype(np.int32), empty, empty)


def _bilinear_f32(in_size: int, out_size: int, align: bool, half: bool) -> Axis:
    i = np.arange(out_size, dtype=F32)
    scale = _scale(in_size, out_size, align)
    v = ((i + F32(0.5)) * scale - F32(0.5)).astype(F32) if half else (i * scale).astype(F32)
    low = np.maximum(np.floor(v).astype(np.int64), 0)
    high = np.minimum(np.ceil(v).astype(np.int64), in_size - 1)
    weight = (v - low.astype(F32)).astype(F32)
    return Axis(low.astype(np.int32), high.astype(np.int32), weight, (F32(1) - weight).astype(F32))


def _trunc_div(a: np.ndarray, b: int) -> np.ndarray:
    """C's integer division: toward zero."""
    return np.sign(a) * (np.abs(a) // b)


def _bilinear_s8(in_size: int, out_size: int, align: bool, half: bool) -> Axis:
    scale = ((1 << 10) * (in_size - 1) + (out_size - 1) // 2) // (out_size - 1) if align and out_size > 1 else \
        ((1 << 10) * in_size + out_size // 2) // out_size
    i = np.arange(out_size, dtype=np.int64)
    v = i * scale + scale // 2 - (1 << 9) if half else i * scale
    low = np.maximum(_trunc_div(v, 1 << 10), 0)
    high = np.minimum(_trunc_div(v + (1 << 10) - 1, 1 << 10), in_size - 1)
    return Axis(low.astype(np.int32), high.astype(np.int32), v.astype(np.int32), np.zeros(0, F32))


def prepare(node: Node) -> ResizeParams:
    x = node.inputs[0]
    assert x is not None
    n, h, w, c = x.shape
    out_h, out_w = _size(node)
    align, half = bool(attr(node, "align_corners")), bool(attr(node, "half_pixel_centers"))
    axis = _nearest if node.op == "resize_nearest_neighbor" else \
        (_bilinear_f32 if x.dtype is DType.FLOAT32 else _bilinear_s8)
    return ResizeParams(n, h, w, c, out_h, out_w, axis(h, out_h, align, half), axis(w, out_w, align, half),
                        x.dtype.itemsize)


def reference(node: Node, p: ResizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    r, c = p.rows, p.cols
    if node.op == "resize_nearest_neighbor":
        return [x[:, r.low][:, :, c.low]]
    a, b = x[:, r.low][:, :, c.low], x[:, r.high][:, :, c.low]
    cc, d = x[:, r.low][:, :, c.high], x[:, r.high][:, :, c.high]
    if x.dtype == np.float32:
        wy, oy = r.weight[None, :, None, None], r.complement[None, :, None, None]
        wx, ox = c.weight[None, None, :, None], c.complement[None, None, :, None]
        total = (a * oy * ox + b * wy * ox).astype(F32)
        total = (total + cc * oy * wx).astype(F32)
        total = (total + d * wy * wx).astype(F32)
        return [(total + F32(0.0)).astype(F32)]
    dy = (r.weight.astype(np.int64) - (1 << 10) * r.low)[None, :, None, None]
    dx = (c.weight.astype(np.int64) - (1 << 10) * c.low)[None, None, :, None]
    ey, ex = (1 << 10) - dy, (1 << 10) - dx
    total = a.astype(np.int64) * ey * ex + b.astype(np.int64) * dy * ex + cc.astype(np.int64) * ey * dx \
        + d.astype(np.int64) * dy * dx
    out = _trunc_div(total + np.where(total > 0, 1 << 19, -(1 << 19)), 1 << 20)
    return [out.astype(x.dtype)]


def emit(node: Node, p: ResizeParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {
        "batches": p.batches, "in_h": p.in_h, "in_w": p.in_w, "channels": p.channels, "out_h": p.out_h,
        "out_w": p.out_w, "row_low": em.const(p.rows.low, "resize_rows"),
        "col_low": em.const(p.cols.low, "resize_cols")}
    args = [em.tensor(x), em.tensor(node.outputs[0])]
    if node.op == "resize_nearest_neighbor":
        fields["element_bytes"] = p.element_bytes
        return CCall("mote_resize_nearest", "mote_resize_nearest_params", fields, args)
    fields.update(row_high=em.const(p.rows.high, "resize_rows"), col_high=em.const(p.cols.high, "resize_cols"),
                  row_weight=em.const(p.rows.weight, "resize_row_weights"),
                  col_weight=em.const(p.cols.weight, "resize_col_weights"))
    if x.dtype is DType.FLOAT32:
        fields.update(row_complement=em.const(p.rows.complement, "resize_row_weights"),
                      col_complement=em.const(p.cols.complement, "resize_col_weights"))
        return CCall("mote_resize_bilinear_f32", "mote_resize_bilinear_f32_params", fields, args)
    return CCall("mote_resize_bilinear_s8", "mote_resize_bilinear_s8_params", fields, args)


_ATTRS = {"align_corners": False, "half_pixel_centers": False}
register(OpDef("resize_nearest_neighbor", shape, prepare, reference, emit, tflite=("RESIZE_NEAREST_NEIGHBOR",),
               check=check, attrs=_ATTRS, dtypes=(DType.INT8, DType.INT16, DType.FLOAT32)))
register(OpDef("resize_bilinear", shape, prepare, reference, emit, tflite=("RESIZE_BILINEAR",), check=check,
               attrs=_ATTRS, dtypes=(DType.INT8, DType.FLOAT32)))
