"""table_mean: the mean over the last axis of a function of int8 values given by its table, requantized to int8:
out[r] = round(sum_j table[(uint8) x[r, j]] / (depth * 2^fraction)) + output zero point, clamped.

  inputs [x int8, table int32 [256] (constant: the function's value at each input byte, in output steps with
  `fraction` fraction bits)]; attrs fraction. The output has the input's shape with the last axis 1.

The ONNX frontend makes it from ReduceMean of an elementwise chain of one quantized tensor (RMSNorm's mean of
squares, mote.frontend.onnx.tables). The sum is exact in int64; the only rounding beyond the table's (each value
within 2^-(fraction+1) of a step) is the final one, halves up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

MAX_DEPTH = 1 << 15


@dataclass(frozen=True, eq=False)
class TableMeanParams:
    rows: int
    depth: int
    table: np.ndarray  # int32 [256]
    fraction: int
    output_zero_point: int


def check(node: Node) -> None:
    x = checks.int8_with_byte_table(node, DType.INT32)
    if not x.shape or not 0 < x.shape[-1] <= MAX_DEPTH:
        raise checks.fail(node, f"rows of {x.shape[-1] if x.shape else 0} values; the kernel takes 1 to {MAX_DEPTH}")
    if not 0 <= int(attr(node, "fraction")) <= 16:
        raise checks.fail(node, f"fraction {attr(node, 'fraction')} is outside 0..16")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [(*x.shape[:-1], 1)]


def prepare(node: Node) -> TableMeanParams:
    x, table = node.inputs[0], node.inputs[1]
    assert x is not None and table is not None and table.data is not None
    return TableMeanParams(x.size // x.shape[-1], x.shape[-1], np.asarray(table.data, np.int32).reshape(256),
                           int(attr(node, "fraction")), node.outputs[0].zero_point)


def reference(node: Node, p: TableMeanParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.int8).reshape(p.rows, p.depth).view(np.uint8)
    sums = p.table.astype(np.int64)[x].sum(axis=1)
    unit = p.depth << p.fraction
    q = np.floor_divide(sums + unit // 2, unit) + p.output_zero_point
    return [np.clip(q, -128, 127).astype(np.int8).reshape(node.outputs[0].shape)]


def emit(node: Node, p: TableMeanParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {"rows": p.rows, "depth": p.depth, "table": em.const(p.table, "mean_table"),
                                    "fraction": p.fraction, "output_zero_point": p.output_zero_point}
    return CCall("mote_table_mean_s8", "mote_table_mean_s8_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("table_mean", shape, prepare, reference, emit, check=check, attrs={"fraction": 10}))
