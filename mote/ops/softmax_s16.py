"""SOFTMAX on int16 (zero points 0, the output scale 1/32768), as TFLite Micro computes it: per row, each
difference from the row's maximum is rescaled (a multiplier of s_in * beta / (10 / 65535)) onto the domain
of an interpolated exp table, the exps summed in int32, the sum normalized by its leading zeros and
inverted through a second table (1 / (1 + x)), and each exp scaled by that reciprocal.

Both tables (513 int16 entries, interpolated on the low 7 bits) are built at compile time exactly as the
interpreter builds them (LUTPopulate in float32: samples, a midpoint correction, rounding half away),
with exp computed in double and rounded once to float32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, attr
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32


def _round(v: np.float32) -> np.float32:
    """TfLiteRound: half away from zero."""
    return F32(math.copysign(math.floor(abs(float(v)) + 0.5), float(v)))


def lut_populate(input_scale: np.float32, input_zero_point: int, output_scale: np.float32,
                 transform: object) -> np.ndarray:
    """TFLite's LUTPopulateInt16<float>: 512 samples with a midpoint correction, then the last value."""
    f = transform  # type: ignore[assignment]
    input_min = F32(input_scale * F32(-32768 - input_zero_point))
    input_max = F32(input_scale * F32(32767 - input_zero_point))
    output_min, output_max = F32(output_scale * F32(-32768)), F32(output_scale * F32(32767))
    step = F32((input_max - input_min) / F32(512))
    half = F32(step / F32(2))
    inv = F32(F32(65536) / F32(output_max - output_min))
    lut = np.zeros(513, np.int16)
    for i in range(512):
        at = F32(input_min + F32(F32(i) * step))
        val = f(at)  # type: ignore[operator]
        mid = f(F32(at + half))  # type: ignore[operator]
        nxt = f(F32(input_min + F32(F32(i + 1) * step)))  # type: ignore[operator]
        sample = _round(F32(val * inv))
        interp = _round(F32(F32(F32(nxt * inv) + _round(F32(val * inv))) / F32(2)))
        bias = _round(F32(F32(interp - _round(F32(mid * inv))) / F32(2)))
        lut[i] = int(min(max(float(F32(sample - bias)), -32768.0), 32767.0))
    last = _round(F32(f(input_max) * inv))  # type: ignore[operator]
    lut[512] = int(min(max(float(last), -32768.0), 32767.0))
    return lut


def _exp(x: np.float32) -> np.float32:
    return F32(math.exp(float(x)))


def _one_over_one_plus(x: np.float32) -> np.float32:
    return F32(F32(1.0) / F32(F32(1.0) + x))


EXP_LUT = lut_populate(F32(F32(10.0) / F32(65535)), 32767, F32(F32(2.0) / F32(65535)), _exp)
RECIPROCAL_LUT = lut_populate(F32(F32(1.0) / F32(65535)), -32768, F32(F32(2.0) / F32(65535)), _one_over_one_plus)


@dataclass(frozen=True)
class SoftmaxS16Params:
    rows: int
    depth: int
    multiplier: int
    shift: int


def check(node: Node) -> None:
    checks.unary_int16(node)
    out = node.outputs[0]
    if abs(float(F32(out.scale)) - 2**-15) > 0.001 * 2**-15:
        raise checks.fail(node, f"the int16 output scale {out.scale:g} is not 1/32768, which TFLite Micro requires")
    beta = attr(node, "beta")
    if not isinstance(beta, (int, float)) or not math.isfinite(beta) or beta <= 0:
        raise checks.fail(node, f"beta {beta!r} must be a finite positive number")


def prepare(node: Node) -> SoftmaxS16Params:
    x = node.inputs[0]
    assert x is not None
    m, s = quantize_multiplier(float(F32(x.scale)) * float(F32(attr(node, "beta"))) / (10.0 / 65535.0))
    depth = x.shape[-1]
    return SoftmaxS16Params(x.size // depth, depth, m, s)


def lut_lookup(value: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """TFLite's LUTLookup for int16: 9 bits of index, 7 of interpolation (int16 arithmetic wraps)."""
    value = np.asarray(value, np.int64)
    index = 256 + (value >> 7)
    base = lut[index].astype(np.int64)
    slope = ((lut[index + 1].astype(np.int64) - base + 32768) % 65536) - 32768
    delta = (slope * (value & 0x7F) + 64) >> 7
    return ((base + delta + 32768) % 65536) - 32768


def reference(node: Node, p: SoftmaxS16Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(p.rows, p.depth)
    diff = x - x.max(axis=1, keepdims=True)
    scaled = multiply_by_quantized_multiplier(diff, p.multiplier, p.shift) + 32767
    exps = lut_lookup(np.clip(scaled, -32768, 32767), EXP_LUT)
    sums = exps.sum(axis=1)
    headroom = np.array([32 - int(s).bit_length() for s in (sums % 2**32)], np.int64)  # leading zeros of uint32
    shifted = ((sums << (headroom - 1)) + (1 << 13)) >> 14
    reciprocal = lut_lookup(np.clip(shifted - ((1 << 15) + (1 << 16)), -32768, 32767), RECIPROCAL_LUT)
    right = (31 - headroom)[:, None]
    result = (exps * reciprocal[:, None] + (np.int64(1) << (right - 1))) >> right
    return [np.clip(result, 0, 32767).astype(np.int16).reshape(node.outputs[0].shape)]


def emit(node: Node, p: SoftmaxS16Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {**vars(p), "exp_lut": em.const(EXP_LUT, "softmax_exp_lut"),
                                    "reciprocal_lut": em.const(RECIPROCAL_LUT, "softmax_reciprocal_lut")}
    return CCall("mote_softmax_s16", "mote_softmax_s16_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)  # SOFTMAX's int16 row
