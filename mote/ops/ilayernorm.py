"""ILAYERNORM: the integer layer norm of the integer dialect (Deeploy's iLayerNorm / Layernorm_s8_s8), exact.

Per row of the last axis (length D), with v = x + input_offset (128 for unsigned inputs):
    mean = sum(v) / D                       (C division, truncating)
    var  = sum((v - mean)^2) / D + 1,  std = floor(sqrt(var))
    out  = int8(((v - mean) * weight[j] / std + bias[j]) >> log2D)   (64-bit; the cast wraps, no clamp)
log2D = int(log2(D_attr)). The output is signed int8.

inputs [x int8, weight int32 [D], bias int32 [D]]; attrs log2d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, c_div, int8_in, isqrt, offset, rows, same_shape, wrap
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class ILayerNormParams:
    rows: int
    length: int
    input_offset: int
    log2d: int
    narrow: int  # 1: every (v - mean) * weight fits int32, the kernel divides in 32 bits
    weight: np.ndarray  # int32 [length]
    bias: np.ndarray  # int32 [length]


def check_norm_constants(node: Node, count: int) -> int:
    """x int8 and `count - 1` int32 constant vectors, one value per element of a row; a row is x's trailing
    axes from some axis on (the last one for iLayerNorm, as its handler gives it). Returns the row length."""
    checks.input_count(node, count)
    x = int8_in(node)
    weight = checks.present(node, 1, "weight")
    rows_of = {math.prod(x.shape[k:]) for k in range(len(x.shape) + 1)}
    length = weight.size
    if length not in rows_of:
        raise checks.fail(node, f"the weight holds {length} values; no trailing axes of {list(x.shape)} have as many")
    for i, role in list(enumerate(("weight", "bias"), start=1))[:count - 1]:
        t = checks.present(node, i, role)
        checks.dtype(node, t, role, DType.INT32)
        checks.constant(node, t, role)
        if t.size != length:
            raise checks.fail(node, f"the {role} holds {t.size} values; the weight {length}")
    if length * 255 * 255 > INT32_MAX:
        raise checks.fail(node, f"rows of {length} elements overflow the 32-bit sum of squares")
    if not 0 <= int(attr(node, "log2d")) <= 62:
        raise checks.fail(node, f"log2d {attr(node, 'log2d')} is not in [0, 62]")
    return length


def check(node: Node) -> None:
    check_norm_constants(node, 3)


def prepare(node: Node) -> ILayerNormParams:
    x, w, b = node.inputs[0], node.inputs[1], node.inputs[2]
    assert x is not None and w is not None and b is not None and w.data is not None and b.data is not None
    weight = np.asarray(w.data, np.int64).reshape(-1)
    narrow = int(255 * int(np.abs(weight).max(initial=0)) <= INT32_MAX)
    return ILayerNormParams(rows(node, x, weight.size), weight.size, offset(x), int(attr(node, "log2d")), narrow,
                            weight.astype(np.int32), np.asarray(b.data, np.int32).reshape(-1))


def reference(node: Node, p: ILayerNormParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    v = np.asarray(inputs[0], np.int64).reshape(p.rows, p.length) + p.input_offset
    centered = v - c_div(v.sum(axis=1, keepdims=True), p.length)
    std = isqrt((centered * centered).sum(axis=1, keepdims=True) // p.length + 1)
    y = c_div(centered * p.weight.astype(np.int64), std) + p.bias.astype(np.int64)
    return [wrap(y >> p.log2d, 8).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: ILayerNormParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_ilayernorm_s8", "mote_ilayernorm_params",
                 {"rows": p.rows, "length": p.length, "input_offset": p.input_offset, "log2d": p.log2d,
                  "narrow": p.narrow, "weight": em.const(p.weight, "ilayernorm_weight"),
                  "bias": em.const(p.bias, "ilayernorm_bias")}, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    return 2 * node.outputs[0].size  # a square and a weight per element


OP = register(OpDef("ilayernorm", same_shape, prepare, reference, emit, macs=macs, check=check,
                    attrs={"log2d": REQUIRED}))
