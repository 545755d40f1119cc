"""MAX_POOL_2D: the largest value in each window, clipped to the input, then the activation clamp."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import pool2d_f32
from mote.ops.common import activation_range
from mote.ops.registry import POOL_ATTRS, CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.ops.window_checks import check_pool2d
from mote.ops.windows import masked_windows, window_geometry


@dataclass(frozen=True)
class PoolParams:
    batches: int
    in_h: int
    in_w: int
    channels: int
    out_h: int
    out_w: int
    filter_h: int
    filter_w: int
    stride_h: int
    stride_w: int
    pad_top: int
    pad_left: int
    act_min: int
    act_max: int


def pool_params(node: Node) -> PoolParams:
    """The geometry and clamp shared by both pooling ops."""
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    n, h, w, c = x.shape
    fh, fw = attr(node, "filter")
    g = window_geometry(node, (h, w), (fh, fw))  # dilation 1: pools do not declare another
    act_min, act_max = activation_range(attr(node, "activation"), out)
    return PoolParams(n, h, w, c, *g.out, fh, fw, *g.stride, *g.pad, act_min, act_max)


def pool_shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    g = window_geometry(node, (x.shape[1], x.shape[2]), attr(node, "filter"))  # any dtype
    return [(x.shape[0], *g.out, x.shape[3])]


def windows(p: PoolParams, x: np.ndarray) -> np.ma.MaskedArray:
    """x as [n, oh, ow, fh, fw, c] windows, out-of-bounds taps masked (numpy masked array)."""
    return masked_windows(x, (p.out_h, p.out_w), (p.filter_h, p.filter_w), (p.stride_h, p.stride_w),
                          (p.pad_top, p.pad_left))


def reference(node: Node, p: PoolParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    best = windows(p, inputs[0]).max(axis=(3, 4)).filled(0)  # no window is empty
    return [np.clip(best, p.act_min, p.act_max).astype(node.outputs[0].dtype.np)]


def pool_call(func: str, node: Node, p: PoolParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall(func, "mote_pool_params", vars(p).copy(), [em.tensor(x), em.tensor(node.outputs[0])])


def emit(node: Node, p: PoolParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return pool_call("mote_max_pool_s16" if x.dtype is DType.INT16 else "mote_max_pool_s8", node, p, em)


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {**dict.fromkeys((DType.INT8, DType.INT16), (check_pool2d, pool_params, reference, emit)),
            DType.FLOAT32: (pool2d_f32.check, pool2d_f32.prepare, pool2d_f32.reference_max,
                            pool2d_f32.emitter("mote_max_pool_f32"))}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("max_pool2d", pool_shape, _prepare, _reference, _emit, tflite=("MAX_POOL_2D",), check=_check,
                    attrs=POOL_ATTRS, dtypes=tuple(BY_DTYPE)))
