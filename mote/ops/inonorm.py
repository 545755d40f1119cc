"""INONORM: the integer "no norm" (an elementwise affine map) of the integer dialect (Deeploy's iNoNorm /
SnitchiNoNorm_s8_s8), exact:
    out = int8(((x * weight + bias) * mul) >> log2D)     (32-bit; the cast wraps, no clamp)
with x the stored int8 (a signed input), weight int8 and bias int32 constants broadcast against x (numpy
rules), log2D = int(log2(D_attr)).

inputs [x int8, weight int8, bias int32]; attrs mul, log2d. The constants are stored per period: a constant
whose shape (without leading ones) is x's trailing shape repeats every its-size elements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, int8_in, same_shape, wrap
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class INoNormParams:
    size: int
    mul: int
    log2d: int
    weight: np.ndarray  # int8 [weight period]
    bias: np.ndarray  # int32 [bias period]


def periodic(t: Tensor, x: Tensor) -> np.ndarray:
    """The constant's values over x in storage order, as short as its repetition allows."""
    assert t.data is not None
    data = np.asarray(t.data)
    shape = list(data.shape)
    while shape and shape[0] == 1:
        shape.pop(0)
    if not shape or tuple(x.shape[len(x.shape) - len(shape):]) == tuple(shape):
        return data.reshape(-1)
    return np.broadcast_to(data, x.shape).reshape(-1)


def check(node: Node) -> None:
    checks.input_count(node, 3)
    x = int8_in(node)
    if x.quant is not None and x.zero_point != 0:
        raise checks.fail(node, "the input must be signed (zero point 0)")
    for i, role, dtype in ((1, "weight", DType.INT8), (2, "bias", DType.INT32)):
        t = checks.present(node, i, role)
        checks.dtype(node, t, role, dtype)
        checks.constant(node, t, role)
        try:
            fits = np.broadcast_shapes(t.shape, x.shape) == x.shape
        except ValueError:
            fits = False
        if not fits:
            raise checks.fail(node, f"the {role} of shape {list(t.shape)} does not broadcast to {list(x.shape)}")
    b = node.inputs[2]
    assert b is not None and b.data is not None
    worst = (128 * 128 + int(np.abs(np.asarray(b.data, np.int64)).max(initial=0))) * abs(int(attr(node, "mul")))
    if worst > INT32_MAX:
        raise checks.fail(node, "(x * weight + bias) * mul leaves int32; Deeploy's kernel would overflow")
    if not 0 <= int(attr(node, "log2d")) <= 31:
        raise checks.fail(node, f"log2d {attr(node, 'log2d')} is not in [0, 31]")


def prepare(node: Node) -> INoNormParams:
    x, w, b = node.inputs[0], node.inputs[1], node.inputs[2]
    assert x is not None and w is not None and b is not None
    return INoNormParams(x.size, int(attr(node, "mul")), int(attr(node, "log2d")),
                         periodic(w, x).astype(np.int8), periodic(b, x).astype(np.int32))


def reference(node: Node, p: INoNormParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(-1)
    w = np.resize(p.weight.astype(np.int64), x.size)
    b = np.resize(p.bias.astype(np.int64), x.size)
    return [wrap(((x * w + b) * p.mul) >> p.log2d, 8).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: INoNormParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_inonorm_s8", "mote_inonorm_params",
                 {"size": p.size, "mul": p.mul, "log2d": p.log2d, "weight_period": p.weight.size,
                  "bias_period": p.bias.size, "weight": em.const(p.weight, "inonorm_weight"),
                  "bias": em.const(p.bias, "inonorm_bias")}, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    return 2 * node.outputs[0].size


OP = register(OpDef("inonorm", same_shape, prepare, reference, emit, macs=macs, check=check,
                    attrs={"mul": REQUIRED, "log2d": REQUIRED}))
