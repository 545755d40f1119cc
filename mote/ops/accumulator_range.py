"""Whether a layer's int32 accumulator can overflow, from its weights, bias and the input's range.

TFLite Micro accumulates bias + sum of w * (x + input_offset) in int32: where some input makes that
overflow, its result is undefined behaviour, so there is no result to be bit-exact with, and mote's
kernels could not compute it without undefined behaviour either. Such a model is refused at compile
time. Otherwise every partial sum in TFLite Micro's order (products first, then the bias) lies in
[bias + negative part, bias + positive part], and mote's general kernels, which add in that order,
stay inside int32 (the fast ones check their own, stricter bounds before they are chosen).
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import Node
from mote.quant import INT32_MAX, INT32_MIN, multiply_by_quantized_multiplier


def accumulator_bounds(weights: np.ndarray, input_offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output channel (rows of `weights` [channels, taps], offsets applied), the least and the
    greatest sum of w * (x + input_offset) over int8 inputs x and any subset of the taps (padding
    skips taps, and a partial sum is a subset): the sums of the negative and of the positive parts."""
    w = np.asarray(weights, np.int64).reshape(len(weights), -1)
    lo, hi = -128 + input_offset, 127 + input_offset
    a, b = w * lo, w * hi
    return np.minimum(np.minimum(a, b), 0).sum(axis=1), np.maximum(np.maximum(a, b), 0).sum(axis=1)


def check_accumulator_range(node: Node, weights: np.ndarray, bias: np.ndarray | None, input_offset: int,
                            multiplier: np.ndarray, shift: np.ndarray, output_offset: int) -> None:
    """Refuse the layer if, for some int8 input, bias + sum of w * (x + input_offset) can leave int32, or
    so can its requantization's left shift (TFLite's `x * (1 << shift)`) or the output offset's sum."""
    least, greatest = accumulator_bounds(weights, input_offset)
    b = np.zeros_like(least) if bias is None else np.asarray(bias, np.int64).reshape(-1)
    _check_sums(node, least, greatest, b, bias is not None)
    low, high = b + least, b + greatest
    left = np.left_shift(np.int64(1), np.maximum(np.asarray(shift, np.int64), 0))
    bad = np.flatnonzero((high * left > INT32_MAX) | (low * left < INT32_MIN))
    if bad.size:
        c = int(bad[0])
        raise UnsupportedError(
            f"node {node.name!r} ({node.op}), output channel {c}: the accumulator range [{int(low[c])}, "
            f"{int(high[c])}] times the requantization's left shift 2^{int(shift[c])} overflows int32, where TFLite "
            f"Micro's result is undefined; check the model's scales")
    # Requantization is monotone once the left shift cannot wrap: the range's ends bound the output.
    for end in (high, low):
        scaled = multiply_by_quantized_multiplier(end, multiplier, shift) + output_offset
        bad = np.flatnonzero((scaled > INT32_MAX) | (scaled < INT32_MIN))
        if bad.size:
            c = int(bad[0])
            raise UnsupportedError(
                f"node {node.name!r} ({node.op}), output channel {c}: the requantized accumulator {int(end[c])} plus "
                f"the output zero point {output_offset} overflows int32, where TFLite Micro's result is undefined; "
                f"check the model's scales and biases")


def _check_sums(node: Node, least: np.ndarray, greatest: np.ndarray, b: np.ndarray, has_bias: bool) -> None:
    """The products' partial sums, and those plus the bias, inside int32."""
    for edge, part, limit in (("largest", greatest, INT32_MAX), ("smallest", least, INT32_MIN)):
        worst = np.maximum(part, part + b) if limit > 0 else np.minimum(part, part + b)
        bad = np.flatnonzero(worst > INT32_MAX if limit > 0 else worst < INT32_MIN)
        if bad.size:
            c = int(bad[0])
            bias_text = f"bias {int(b[c])}" if has_bias else "no bias"
            raise UnsupportedError(
                f"node {node.name!r} ({node.op}), output channel {c}: {bias_text} plus the {edge} accumulator "
                f"{int(part[c])} overflows int32 (limit {limit}), where TFLite Micro's result is undefined; "
                f"requantize the model so that its biases and weights stay in range")
