"""AVERAGE_POOL_2D: the mean of each window clipped to the input, rounded half away from zero, then clamped.

Bit-exact with TFLite Micro's int8 and int16 AveragePool: the divisor is the number of in-bounds taps, and
the int32 sum is divided as (sum + count / 2) / count when positive, else (sum - count / 2) / count
(C division, truncating toward zero). Input and output must share their quantization, as TFLM requires.
In a legacy uint8 model (attribute legacy_uint8), TensorFlow Lite's uint8 AveragePool rounded the
non-negative uint8 sum as (sum + count / 2) / count: on the values shifted to int8, halves round up
(mote_avg_pool_half_up_s8).
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import pool2d_f32
from mote.ops.max_pool2d import PoolParams, pool_call, pool_params, pool_shape, windows
from mote.ops.registry import POOL_ATTRS, CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.ops.window_checks import check_pool2d


def prepare(node: Node) -> PoolParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    if abs(np.float32(x.scale) - np.float32(out.scale)) > 1e-6 or x.zero_point != out.zero_point:
        raise UnsupportedError(f"node {node.name!r}: average pooling needs the same quantization on input and "
                               f"output (got scale {x.scale} / {out.scale}, zero point {x.zero_point} / "
                               f"{out.zero_point})")
    return pool_params(node)


def round_div_away(total: np.ndarray, count: np.ndarray) -> np.ndarray:
    """total / count (count > 0) with halves away from zero, as C integer division computes it."""
    half = count // 2
    return np.where(total > 0, (total + half) // count, -((half - total) // count))


def reference(node: Node, p: PoolParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    win = windows(p, inputs[0])
    total = win.sum(axis=(3, 4)).filled(0).astype(np.int64)
    count = win.count(axis=(3, 4))
    if np.any(count == 0):  # impossible with SAME/VALID geometry; TFLM fails the op
        raise UnsupportedError(f"node {node.name!r}: an average pooling window lies wholly outside the input")
    count = np.asarray(count, dtype=np.int64)
    mean = (total + count // 2) // count if node.attrs.get("legacy_uint8") else round_div_away(total, count)
    return [np.clip(mean, p.act_min, p.act_max).astype(node.outputs[0].dtype.np)]


def emit(node: Node, p: PoolParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    if x.dtype is DType.INT16:
        return pool_call("mote_avg_pool_s16", node, p, em)
    return pool_call("mote_avg_pool_half_up_s8" if node.attrs.get("legacy_uint8") else "mote_avg_pool_s8", node, p, em)


def macs(node: Node) -> int:
    """Additions: one per window tap (the windows' border clipping is ignored)."""
    f = attr(node, "filter")
    return node.outputs[0].size * f[0] * f[1]


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {**dict.fromkeys((DType.INT8, DType.INT16), (check_pool2d, prepare, reference, emit)),
            DType.FLOAT32: (pool2d_f32.check, pool2d_f32.prepare, pool2d_f32.reference_avg,
                            pool2d_f32.emitter("mote_avg_pool_f32"))}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("avg_pool2d", pool_shape, _prepare, _reference, _emit, macs, tflite=("AVERAGE_POOL_2D",),
                    check=_check, attrs=POOL_ATTRS, dtypes=tuple(BY_DTYPE)))
