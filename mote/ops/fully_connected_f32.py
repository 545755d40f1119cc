"""FULLY_CONNECTED in float32: out[b, o] = clamp(sum_d x[b, d] * w[o, d] + bias[o]).

Bit-exact with TFLite Micro's float reference FullyConnected: each sum starts at 0 and adds the
products in the order d = 0, 1, ...; the bias (0 when absent) is added after the sum, then the
fused activation clamps (mote.ops.float_common).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.float_common import (
    accumulate_taps,
    c_float,
    clamp,
    float_activation,
    float_constant,
    float_data,
    float_range,
)
from mote.ops.registry import CCall, Core, Emitter, Kernel, attr


@dataclass(frozen=True, eq=False)
class FullyConnectedF32Params:
    batches: int
    accum_depth: int
    out_depth: int
    act_min: float
    act_max: float
    weights: np.ndarray  # float32 [out_depth, accum_depth]
    bias: np.ndarray  # float32 [out_depth], zeros when the model has none


def check(node: Node) -> None:
    checks.input_count(node, 2, 3)
    x = float_activation(node, node.inputs[0], "input")
    float_activation(node, node.outputs[0], "output")
    checks.activation(node)
    w = float_constant(node, 1, "weights")
    assert w is not None
    checks.rank(node, w, "weights", 2)
    if w.shape[1] == 0 or x.size % w.shape[1]:
        raise checks.fail(node, f"the input {x.name!r} of {x.size} values is not a whole number of rows of "
                                f"{w.shape[1]} (the weights' depth)")
    bias = float_constant(node, 2, "bias", optional=True)
    if bias is not None and bias.size != w.shape[0]:
        raise checks.fail(node, f"the bias {bias.name!r} has {bias.size} values for {w.shape[0]} outputs")
    if not isinstance(attr(node, "keep_num_dims"), bool):
        raise checks.fail(node, "attribute keep_num_dims must be true or false")


def prepare(node: Node) -> FullyConnectedF32Params:
    x = node.inputs[0]
    weights = float_data(node.inputs[1])
    assert x is not None and weights is not None
    out_depth, depth = weights.shape
    bias = float_data(node.inputs[2] if len(node.inputs) > 2 else None)
    bias = np.zeros(out_depth, np.float32) if bias is None else bias.reshape(-1)
    lo, hi = float_range(node)
    return FullyConnectedF32Params(x.size // depth, depth, out_depth, lo, hi, weights, bias)


def reference(node: Node, p: FullyConnectedF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.float32).reshape(p.batches, p.accum_depth)
    total = np.zeros((p.batches, p.out_depth), np.float32)
    for d in range(p.accum_depth):  # TFLite's order; numpy's own sums are pairwise
        total = accumulate_taps(total, x[:, d:d + 1] * p.weights[:, d])
    out = clamp(total + p.bias, p.act_min, p.act_max)
    return [out.reshape(node.outputs[0].shape)]


def _pack(node: Node, p: FullyConnectedF32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {
        "batches": p.batches, "accum_depth": p.accum_depth, "out_depth": p.out_depth,
        "act_min": c_float(p.act_min), "act_max": c_float(p.act_max),
        "weights": em.const(np.ascontiguousarray(p.weights.T), "weights"), "bias": em.const(p.bias, "bias")}
    return CCall("mote_fully_connected_f32", "mote_fully_connected_f32_params", fields,
                 [em.tensor(x), em.tensor(node.outputs[0])])


KERNEL = Kernel("mote_fully_connected_f32", frozenset(Core), _pack, dtypes=frozenset({DType.FLOAT32}))
