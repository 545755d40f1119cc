"""HARD_SWISH on int8, as TFLite Micro computes it (reference_ops::HardSwish, quantized): the input on a
finer scale (x - zp) * 2^7 in int16, a "reluish" factor min(max(x + 3, 0), 6) / 6 computed in int16 fixed
point (gemmlowp's rounding doubling multiply with 16-bit multipliers, a saturating shift, a rounding
divide), multiplied by the rescaled input and divided down to the output scale. Every step is a
function of the one int8 input, so mote runs it at compile time for all 256 values and the C kernel
looks the results up (mote_lut_s8)."""

from __future__ import annotations

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.elu_int import LutParams, lut_emit, lut_reference
from mote.quant import quantize_multiplier

F32 = np.float32


def _int16(v: int) -> int:
    return (v + 32768) % 65536 - 32768


def _c_div(a: int, b: int) -> int:
    """C's integer division: toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _srdhm16(a: int, b: int) -> int:
    """gemmlowp::SaturatingRoundingDoublingHighMul on int16."""
    if a == b == -32768:
        return 32767
    ab = a * b
    return _int16(_c_div(ab + ((1 << 14) if ab >= 0 else 1 - (1 << 14)), 1 << 15))


def _sdhm16(a: int, b: int) -> int:
    """TFLite's SaturatingDoublingHighMul on int16 (truncating)."""
    return 32767 if a == b == -32768 else _int16(_c_div(a * b, 1 << 15))


def _rdbypot(x: int, exponent: int) -> int:
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def _saturating_left_shift(x: int, amount: int) -> int:
    return min(max(x * (1 << amount), -32768), 32767)


def _multiplier16(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier."""
    m, exponent = quantize_multiplier(real)
    return (32767 if m >= 2**31 - 1 - (1 << 15) else (m + (1 << 15)) >> 16), exponent


def check(node: Node) -> None:
    checks.unary_int8(node)
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    if _multiplier16(float(F32(F32(F32(1.0) / F32(128.0)) * F32(x.scale)) / F32(out.scale)))[1] > 0:
        raise checks.fail(node, "the output scale is finer than the input's / 128; TFLite Micro refuses that")


def prepare(node: Node) -> LutParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    hires = F32(F32(F32(1.0) / F32(128.0)) * F32(x.scale))
    out_m, out_e = _multiplier16(float(F32(hires / F32(out.scale))))
    relu_m, relu_e = _multiplier16(float(F32(hires / F32(F32(3.0) / F32(32768.0)))))
    table = np.zeros(256, np.int8)
    for value in range(-128, 128):
        hires_value = _int16((value - x.zero_point) * (1 << 7))
        preshift = _srdhm16(hires_value, out_m)
        reluish = hires_value
        if relu_e > 0:
            reluish = _saturating_left_shift(reluish, relu_e - 1)
        reluish = _srdhm16(reluish, relu_m)
        if relu_e > 0:
            reluish = _saturating_left_shift(reluish, 1)
        if relu_e < 0:
            reluish = _rdbypot(reluish, -relu_e)
        reluish = _int16((reluish + (1 << 15)) >> 1)
        result = _int16(_rdbypot(_sdhm16(reluish, preshift), -out_e) + out.zero_point)
        table[value & 0xFF] = min(max(result, -128), 127)
    return LutParams(x.size, table)


ROW = (check, prepare, lut_reference, lut_emit)
