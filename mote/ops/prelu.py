"""PRELU: x >= 0 ? x : x * alpha, alpha broadcast against x, as TFLite Micro computes it.

float32: x >= 0 ? x : x * alpha. int8 and int16 (alpha int8 for both):
    d = x - x_zp;  out = clamp(out_zp + (d >= 0 ? MBQM(d, s_x / s_out) : MBQM(d * (alpha - alpha_zp),
                                                                         s_x * s_alpha / s_out)))
to the type, each multiplier from the scales in double.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.registry import CCall, Emitter, OpDef, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier


@dataclass(frozen=True)
class PreluParams:
    bcast: Broadcast
    input_offset: int = 0  # -input zero point
    alpha_offset: int = 0
    output_offset: int = 0
    identity_multiplier: int = 0
    identity_shift: int = 0
    alpha_multiplier: int = 0
    alpha_shift: int = 0
    act_min: int = 0
    act_max: int = 0


def check(node: Node) -> None:
    checks.input_count(node, 2)
    x, alpha = checks.present(node, 0, "input"), checks.present(node, 1, "alpha")
    checks.dtype(node, x, "input", DType.FLOAT32, DType.INT8, DType.INT16)
    checks.dtype(node, alpha, "alpha", DType.FLOAT32 if x.dtype is DType.FLOAT32 else DType.INT8)
    out = node.outputs[0]
    checks.dtype(node, out, "output", x.dtype)
    output_shape(node)
    if x.dtype is not DType.FLOAT32:
        for t, role in ((x, "input"), (alpha, "alpha"), (out, "output")):
            checks.quantized(node, t, role)


def prepare(node: Node) -> PreluParams:
    x, alpha, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert x is not None and alpha is not None
    if x.dtype is DType.FLOAT32:
        return PreluParams(plan_broadcast(node))
    f = [float(np.float32(s)) for s in (x.scale, alpha.scale, out.scale)]
    info = np.iinfo(out.dtype.np)
    return PreluParams(plan_broadcast(node), -x.zero_point, -alpha.zero_point, out.zero_point,
                       *quantize_multiplier(f[0] / f[2]), *quantize_multiplier(f[0] * f[1] / f[2]), int(info.min),
                       int(info.max))


def reference(node: Node, p: PreluParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = node.outputs[0]
    if out.dtype is DType.FLOAT32:
        x, alpha = (np.broadcast_to(np.asarray(v, np.float32), out.shape) for v in inputs)
        return [np.where(x >= 0, x, x * alpha).astype(np.float32)]
    x, alpha = broadcast_inputs(node, inputs)
    d = np.asarray(x, np.int64) + p.input_offset
    positive = multiply_by_quantized_multiplier(d, p.identity_multiplier, p.identity_shift)
    negative = multiply_by_quantized_multiplier(d * (np.asarray(alpha, np.int64) + p.alpha_offset),
                                                p.alpha_multiplier, p.alpha_shift)
    value = np.where(d >= 0, positive, negative) + p.output_offset
    return [np.clip(value, p.act_min, p.act_max).astype(out.dtype.np).reshape(out.shape)]


def emit(node: Node, p: PreluParams, em: Emitter) -> CCall:
    x, alpha = node.inputs[0], node.inputs[1]
    assert x is not None and alpha is not None
    args = [em.tensor(x), em.tensor(alpha), em.tensor(node.outputs[0])]
    if x.dtype is DType.FLOAT32:
        return CCall("mote_prelu_f32", "mote_prelu_params", p.bcast.fields(em), args)
    fields: dict[str, int | str] = {**p.bcast.fields(em), **{k: v for k, v in vars(p).items() if k != "bcast"},
                                    "wide": int(x.dtype is DType.INT16)}
    return CCall("mote_prelu_int", "mote_prelu_params", fields, args)


OP = register(OpDef("prelu", output_shape, prepare, reference, emit, tflite=("PRELU",), check=check,
                    dtypes=(DType.INT8, DType.INT16, DType.FLOAT32)))
