"""RELU and RELU6 in float32, as TFLite Micro's float kernels compare: RELU x < 0 ? 0 : x; RELU6
x > 6 ? 6 : (x < 0 ? 0 : x). A NaN and -0.0 pass through unchanged."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.float_common import unary_float
from mote.ops.registry import CCall, Emitter

check = unary_float


@dataclass(frozen=True)
class ReluF32Params:
    size: int


def prepare(node: Node) -> ReluF32Params:
    x = node.inputs[0]
    assert x is not None
    return ReluF32Params(x.size)


def reference(node: Node, p: ReluF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.float32)
    zero, six = np.float32(0.0), np.float32(6.0)
    lowered = np.where(x < zero, zero, x)
    return [(lowered if node.op == "relu" else np.where(x > six, six, lowered)).astype(np.float32)]


def emit(node: Node, p: ReluF32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall(f"mote_{node.op}_f32", f"mote_{node.op}_f32_params", {"size": p.size},
                 [em.tensor(x), em.tensor(node.outputs[0])])

