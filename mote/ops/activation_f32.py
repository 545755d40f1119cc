"""LOGISTIC, TANH and SOFTMAX in float32, in TFLite Micro's float reference order, with mote's own
exp and tanh (mote.ops.float_math, within 1 ULP of the exact values; the C calls the same
functions, so reference and C agree bit for bit).

  logistic: x > 16.619047 -> 1; x < -9 -> exp(x); else 1 / (1 + exp(-x))
  tanh:     tanh(x)
  softmax:  per row of the last axis: m = max; e_c = exp((x_c - m) * beta) summed left to right;
            out_c = e_c / sum
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.float_common import c_float, unary_float
from mote.ops.float_math import expf, tanhf
from mote.ops.registry import CCall, Emitter, attr

check = unary_float
LOGISTIC_UPPER = np.float32(16.619047164916992188)  # beyond: 1 in float
LOGISTIC_LOWER = np.float32(-9.0)  # below: 1 + e^-x is e^-x in float, so the result is e^x


@dataclass(frozen=True)
class ElementwiseF32Params:
    size: int


def prepare(node: Node) -> ElementwiseF32Params:
    x = node.inputs[0]
    assert x is not None
    return ElementwiseF32Params(x.size)


def logistic_reference(node: Node, p: ElementwiseF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.float32)
    with np.errstate(over="ignore"):
        middle = (np.float32(1.0) / (np.float32(1.0) + expf(-x))).astype(np.float32)
    return [np.where(x > LOGISTIC_UPPER, np.float32(1.0), np.where(x < LOGISTIC_LOWER, expf(x), middle))]


def tanh_reference(node: Node, p: ElementwiseF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [tanhf(inputs[0])]


def emit(node: Node, p: ElementwiseF32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall(f"mote_{node.op}_f32", "mote_elementwise_f32_params", {"size": p.size},
                 [em.tensor(x), em.tensor(node.outputs[0])])


@dataclass(frozen=True)
class SoftmaxF32Params:
    rows: int
    depth: int  # the last axis
    beta: float


def softmax_prepare(node: Node) -> SoftmaxF32Params:
    x = node.inputs[0]
    assert x is not None
    depth = x.shape[-1] if x.shape else 1
    return SoftmaxF32Params(x.size // max(depth, 1), depth, float(np.float32(attr(node, "beta"))))


def softmax_reference(node: Node, p: SoftmaxF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.float32).reshape(p.rows, p.depth)
    top = x.max(axis=1, keepdims=True)  # a max is exact in any order
    e = expf((x - top) * np.float32(p.beta))
    total = np.zeros((p.rows, 1), np.float32)
    for c in range(p.depth):  # left to right, as the reference kernel sums
        total = (total + e[:, c:c + 1]).astype(np.float32)
    return [(e / total).astype(np.float32).reshape(inputs[0].shape)]


def softmax_emit(node: Node, p: SoftmaxF32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_softmax_f32", "mote_softmax_f32_params",
                 {"rows": p.rows, "depth": p.depth, "beta": c_float(p.beta)},
                 [em.tensor(x), em.tensor(node.outputs[0])])
