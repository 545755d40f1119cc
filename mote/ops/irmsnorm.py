"""IRMSNORM: the integer RMS norm of the integer dialect (Deeploy's iRMSNorm / iRMSnorm_s8_s8), exact.

Per row of the normalized trailing axes (length D), with v = x + input_offset (128 for unsigned inputs):
    std = floor(sqrt(sum(v^2) / D + 1))
    out = clamp((v * weight[j] / std) >> log2D, -128, 127)     (32-bit, C's truncating division)
log2D = int(log2(D_attr)). The output holds the clamped values as stored int8 (zero point 0 for a signed
input, -128 for an unsigned one: Deeploy's type follows the input's sign).

inputs [x int8, weight int32 [D]]; attrs log2d.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import Node
from mote.ops import checks
from mote.ops.dialect_int import INT32_MAX, c_div, isqrt, offset, rows, same_shape
from mote.ops.ilayernorm import check_norm_constants
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True, eq=False)
class IRmsNormParams:
    rows: int
    length: int
    input_offset: int
    log2d: int
    weight: np.ndarray  # int32 [length]


def check(node: Node) -> None:
    check_norm_constants(node, 2)
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None and w.data is not None
    largest = max(128, 127 + offset(x))
    if largest * int(np.abs(np.asarray(w.data, np.int64)).max(initial=0)) > INT32_MAX:
        raise checks.fail(node, "x * weight leaves int32; Deeploy's kernel would overflow")
    if int(attr(node, "log2d")) > 31:
        raise checks.fail(node, f"log2d {attr(node, 'log2d')} is not in [0, 31]")


def prepare(node: Node) -> IRmsNormParams:
    x, w = node.inputs[0], node.inputs[1]
    assert x is not None and w is not None and w.data is not None
    weight = np.asarray(w.data, np.int32).reshape(-1)
    return IRmsNormParams(rows(node, x, weight.size), weight.size, offset(x), int(attr(node, "log2d")), weight)


def reference(node: Node, p: IRmsNormParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    v = np.asarray(inputs[0], np.int64).reshape(p.rows, p.length) + p.input_offset
    std = isqrt((v * v).sum(axis=1, keepdims=True) // p.length + 1)
    y = c_div(v * p.weight.astype(np.int64), std) >> p.log2d
    return [np.clip(y, -128, 127).astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: IRmsNormParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_irmsnorm_s8", "mote_irmsnorm_params",
                 {"rows": p.rows, "length": p.length, "input_offset": p.input_offset, "log2d": p.log2d,
                  "weight": em.const(p.weight, "irmsnorm_weight")}, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    return 2 * node.outputs[0].size  # a square and a weight per element


OP = register(OpDef("irmsnorm", same_shape, prepare, reference, emit, macs=macs, check=check,
                    attrs={"log2d": REQUIRED}))
