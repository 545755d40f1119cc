"""LEAKY_RELU on int8 and int16 (TFLite Micro's QuantizeLeakyRelu): with d = x - input zero point,
    out = clamp(output zero point + MultiplyByQuantizedMultiplier(d, d >= 0 ? identity : alpha))
where identity = QuantizeMultiplier(s_in / s_out) and alpha = QuantizeMultiplier(s_in * alpha / s_out), the
float32 scales and alpha multiplied and divided in double (what the interpreter computes: the float32 ratio
differs at near-ties on int16)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, attr
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32


@dataclass(frozen=True)
class LeakyReluParams:
    size: int
    input_zero_point: int
    output_zero_point: int
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int
    act_min: int
    act_max: int


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.INT8, DType.INT16)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    checks.quantized(node, x, "input")
    checks.quantized(node, node.outputs[0], "output")


def prepare(node: Node) -> LeakyReluParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    s_in, s_out, alpha_f = (float(F32(v)) for v in (x.scale, out.scale, attr(node, "alpha")))
    identity = quantize_multiplier(s_in / s_out)
    alpha = quantize_multiplier(s_in * alpha_f / s_out)
    info = np.iinfo(x.dtype.np)
    return LeakyReluParams(x.size, x.zero_point, out.zero_point, *identity, *alpha, int(info.min), int(info.max))


def reference(node: Node, p: LeakyReluParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = np.asarray(inputs[0], np.int64) - p.input_zero_point
    positive = multiply_by_quantized_multiplier(d, p.identity_multiplier, p.identity_shift)
    negative = multiply_by_quantized_multiplier(d, p.alpha_multiplier, p.alpha_shift)
    out = p.output_zero_point + np.where(d >= 0, positive, negative)
    return [np.clip(out, p.act_min, p.act_max).astype(node.outputs[0].dtype.np)]


def emit(node: Node, p: LeakyReluParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    func = "mote_leaky_relu_s8" if x.dtype is DType.INT8 else "mote_leaky_relu_s16"
    return CCall(func, "mote_leaky_relu_params", dict(vars(p)), [em.tensor(x), em.tensor(node.outputs[0])])
