"""row_scale: each row of an int8 tensor scaled by a function of one int8 value per row, requantized:
out[r, i] = clamp(((x[r, i] - zx) * mul[b] + 2^(t - 1)) >> t + z_out) with t = 31 - shift[b], b the row's scale byte
(as uint8): one 64-bit product rounded once (halves up). The 256 multipliers are computed at compile time.

  inputs [x int8 [..., D], s int8 [..., 1], multipliers int32 [256], shifts int32 [256] (constants)]

The ONNX frontend makes it from RMSNorm's division x / sqrt(mean(x^2) + eps) (Div or Mul of a dequantized
tensor by an elementwise chain of one quantized value per row, mote.frontend.onnx.tables): the chain's value at
each byte f(b) gives the multiplier s_x / (f(b) s_out) (or s_x f(b) / s_out), as a Q31 multiplier and a shift
(relative error below 2^-30). Rounded once, the result differs from ONNX's (halves to even) only at ties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register


@dataclass(frozen=True, eq=False)
class RowScaleParams:
    rows: int
    depth: int
    input_zero_point: int
    output_zero_point: int
    multipliers: np.ndarray  # int32 [256]
    shifts: np.ndarray  # int32 [256]


def check(node: Node) -> None:
    checks.input_count(node, 4)
    x = checks.int8_activation(node, node.inputs[0], "input")
    s = checks.int8_activation(node, node.inputs[1], "row scale")
    checks.int8_activation(node, node.outputs[0], "output")
    if not x.shape or s.shape != (*x.shape[:-1], 1):
        raise checks.fail(node, f"the row scale's shape {list(s.shape)} is not the input's {list(x.shape)} with "
                                "its last axis 1")
    for i, role in ((2, "multipliers"), (3, "shifts")):
        t = checks.present(node, i, role)
        checks.dtype(node, t, role, DType.INT32)
        checks.constant(node, t, role)
        if t.size != 256:
            raise checks.fail(node, f"the {role} hold {t.size} values; they need 256")
    shifts = np.asarray(node.inputs[3].data)  # type: ignore[union-attr]
    if shifts.min() < -31 or shifts.max() > 30:
        raise checks.fail(node, "a shift is outside -31..30")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> RowScaleParams:
    x, m, s = node.inputs[0], node.inputs[2], node.inputs[3]
    assert x is not None and m is not None and s is not None
    depth = x.shape[-1]
    return RowScaleParams(x.size // depth, depth, x.zero_point, node.outputs[0].zero_point,
                          np.asarray(m.data, np.int32).reshape(256), np.asarray(s.data, np.int32).reshape(256))


def reference(node: Node, p: RowScaleParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int64).reshape(p.rows, p.depth) - p.input_zero_point
    at = np.asarray(inputs[1], np.int8).reshape(p.rows, 1).view(np.uint8).astype(np.int64)
    t = 31 - p.shifts.astype(np.int64)[at]
    scaled = np.right_shift(x * p.multipliers.astype(np.int64)[at] + np.left_shift(np.int64(1), t - 1), t)
    out = np.clip(scaled + p.output_zero_point, -128, 127).astype(np.int8)
    return [out.reshape(node.outputs[0].shape)]


def emit(node: Node, p: RowScaleParams, em: Emitter) -> CCall:
    x, s = node.inputs[0], node.inputs[1]
    assert x is not None and s is not None
    fields: dict[str, int | str] = {
        "rows": p.rows, "depth": p.depth, "input_zero_point": p.input_zero_point,
        "output_zero_point": p.output_zero_point, "multipliers": em.const(p.multipliers, "row_multipliers"),
        "shifts": em.const(p.shifts, "row_shifts")}
    return CCall("mote_row_scale_s8", "mote_row_scale_s8_params", fields,
                 [em.tensor(x), em.tensor(s), em.tensor(node.outputs[0])])


OP = register(OpDef("row_scale", shape, prepare, reference, emit, check=check))
