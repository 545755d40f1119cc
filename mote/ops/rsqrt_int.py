"""RSQRT on int8, as TFLite Micro computes it (elementwise.cc, RsqrtEvalQuantized): for v = x - zp, 127 when
v == 0, else 1 / sqrt(v) as a multiplier and shift (GetInvSqrtQuantizedMultiplierExp, mote.ops.l2_norm_int),
applied to 1 with 20 bits kept (MultiplyByQuantizedMultiplier(1, m, shift + 20)), then requantized by
1 / (sqrt(s_in) * s_out) (the square root and product in float32, the reciprocal in double) with the 20 bits
taken back, offset and clamped. A function of the one input byte: the compiler tabulates it and the C looks it
up (mote_lut_checked_s8). TFLite Micro fails on an input below the zero point; so do the reference (it raises)
and the C (MOTE_ERROR)."""

from __future__ import annotations

import math

import numpy as np

from mote.errors import MoteError
from mote.ir import Node
from mote.ops import checks
from mote.ops.elu_int import LutParams
from mote.ops.l2_norm_int import inv_sqrt
from mote.ops.registry import CCall, Emitter
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32
K_SHIFT = 20


def check(node: Node) -> None:
    checks.unary_int8(node)


def prepare(node: Node) -> LutParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    root = F32(math.sqrt(float(F32(x.scale))))
    multiplier, shift = quantize_multiplier(1.0 / float(F32(root * F32(out.scale))))
    table = np.zeros(256, np.int8)
    for value in range(-128, 128):
        v = value - x.zero_point
        if v <= 0:
            q = 127  # v == 0 as TFLite Micro; v < 0 is refused at run time
        else:
            m, s = inv_sqrt(v)
            data = int(multiply_by_quantized_multiplier(np.int64(1), m, s + K_SHIFT))
            q = int(multiply_by_quantized_multiplier(np.int64(data), multiplier, shift - K_SHIFT)) + out.zero_point
        table[value & 0xFF] = min(max(q, -128), 127)
    return LutParams(x.size, table)


def reference(node: Node, p: LutParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int8)
    zero_point = node.inputs[0].zero_point  # type: ignore[union-attr]
    if x.size and int(x.min()) < zero_point:
        raise MoteError(f"node {node.name!r} (rsqrt): an input is below the zero point (a negative value); "
                        "TFLite Micro fails on it too")
    return [p.table[x.view(np.uint8)]]


def emit(node: Node, p: LutParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_lut_checked_s8", "mote_lut_checked_s8_params",
                 {"size": p.size, "table": em.const(p.table, "rsqrt_table"), "min_input": x.zero_point},
                 [em.tensor(x), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)
