"""ADD, SUB and MUL in float32: clamp(a op b) with numpy broadcasting and a fused activation.

Bit-exact with TFLite Micro's float kernels (elementwise, or BroadcastAdd6DSlow and its siblings):
one IEEE operation per output, then ActivationFunctionWithMinMax (mote.ops.float_common).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops.broadcast import Broadcast, output_shape, plan_broadcast
from mote.ops.float_common import binary_float, c_float, clamp, float_range
from mote.ops.registry import CCall, Emitter

check = binary_float

OPERATIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply}


@dataclass(frozen=True)
class BinaryF32Params:
    bcast: Broadcast
    act_min: float
    act_max: float


def prepare(node: Node) -> BinaryF32Params:
    return BinaryF32Params(plan_broadcast(node), *float_range(node))


def reference(node: Node, p: BinaryF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = output_shape(node)[0]
    a = np.broadcast_to(np.asarray(inputs[0], np.float32), out)
    b = np.broadcast_to(np.asarray(inputs[1], np.float32), out)
    return [clamp(OPERATIONS[node.op](a, b).astype(np.float32), p.act_min, p.act_max)]


def emit(node: Node, p: BinaryF32Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields = {**p.bcast.fields(em), "act_min": c_float(p.act_min), "act_max": c_float(p.act_max)}
    return CCall(f"mote_{node.op}_f32", "mote_binary_f32_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])
