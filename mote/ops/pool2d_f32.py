"""AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D in float32: windows clipped to the input, then the clamp.

Bit-exact with TFLite Micro's float reference pools, which visit a window's in-bounds taps row by row:
  average  sum from 0, divided by the number of taps (a float count);
  max      from the lowest float, max = max < v ? v : max (a NaN never wins);
  l2       sqrt(sum of squares from 0 / count), the square root correctly rounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.float_common import F32_MAX, accumulate_taps, c_float, clamp, float_activation, float_range
from mote.ops.registry import CCall, Emitter, attr
from mote.ops.windows import window_geometry


@dataclass(frozen=True)
class PoolF32Params:
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
    act_min: float
    act_max: float


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = float_activation(node, node.inputs[0], "input")
    out = float_activation(node, node.outputs[0], "output")
    checks.activation(node)
    checks.rank(node, x, "input", 4)
    checks.rank(node, out, "output", 4)
    fh, fw = checks.window_pair(node, "filter")
    oh, ow = checks.spatial_output(node, x, (fh, fw))
    checks.window_budget(node, x.shape[0] * oh * ow * fh * fw * x.shape[3])


def prepare(node: Node) -> PoolF32Params:
    x = node.inputs[0]
    assert x is not None
    n, h, w, c = x.shape
    fh, fw = attr(node, "filter")
    g = window_geometry(node, (h, w), (fh, fw))
    return PoolF32Params(n, h, w, c, *g.out, fh, fw, *g.stride, *g.pad, *float_range(node))


def _taps(p: PoolF32Params, x: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per filter tap, row by row: the input under it for every output [n, oh, ow, c] and whether it is
    inside the input [oh, ow, 1]."""
    x = np.asarray(x, np.float32)
    taps = []
    for fy in range(p.filter_h):
        rows = np.arange(p.out_h) * p.stride_h - p.pad_top + fy
        for fx in range(p.filter_w):
            cols = np.arange(p.out_w) * p.stride_w - p.pad_left + fx
            picked = x[:, np.clip(rows, 0, p.in_h - 1)][:, :, np.clip(cols, 0, p.in_w - 1)]
            inside = ((rows >= 0) & (rows < p.in_h))[:, None] & ((cols >= 0) & (cols < p.in_w))[None, :]
            taps.append((picked, inside[:, :, None]))
    return taps


def _sum(p: PoolF32Params, x: np.ndarray, square: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each window's sum (of squares) in TFLite's order, and its count of taps as float32."""
    total = np.zeros((p.batches, p.out_h, p.out_w, p.channels), np.float32)
    count = np.zeros((p.out_h, p.out_w, 1), np.float32)
    for picked, inside in _taps(p, x):
        total = accumulate_taps(total, picked * picked if square else picked, inside)
        count = count + inside
    return total, count


def reference_avg(node: Node, p: PoolF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    total, count = _sum(p, inputs[0], square=False)
    return [clamp(total / count, p.act_min, p.act_max)]


def reference_l2(node: Node, p: PoolF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    total, count = _sum(p, inputs[0], square=True)
    return [clamp(np.sqrt((total / count).astype(np.float32)), p.act_min, p.act_max)]


def reference_max(node: Node, p: PoolF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    best = np.full((p.batches, p.out_h, p.out_w, p.channels), -F32_MAX, np.float32)
    for picked, inside in _taps(p, inputs[0]):
        best = np.where(inside & (best < picked), picked, best)
    return [clamp(best, p.act_min, p.act_max)]


def emitter(func: str) -> Callable[[Node, PoolF32Params, Emitter], CCall]:
    """The binding of one of the float pool kernels (they share mote_pool_f32_params)."""

    def emit(node: Node, p: PoolF32Params, em: Emitter) -> CCall:
        x = node.inputs[0]
        assert x is not None
        fields: dict[str, int | str] = {**vars(p), "act_min": c_float(p.act_min), "act_max": c_float(p.act_max)}
        return CCall(func, "mote_pool_f32_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])

    return emit
