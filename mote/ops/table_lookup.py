"""table_lookup: an int8 function given by its 256 values, out = table[(uint8) x] (mote_lut_s8).

  inputs [x int8, table int8 [256] (constant, indexed by the input byte)]

The ONNX frontend builds the table at compile time for a chain of elementwise float ops of one quantized tensor
(mote.frontend.onnx.tables): whatever the ops compute, the device only looks a byte up.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, Overlap, register


def check(node: Node) -> None:
    x = checks.int8_with_byte_table(node, DType.INT8)
    if node.outputs[0].shape != x.shape:
        raise checks.fail(node, "the output's shape differs from the input's")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare(node: Node) -> np.ndarray:
    table = node.inputs[1]
    assert table is not None and table.data is not None
    return np.asarray(table.data, np.int8).reshape(256)


def reference(node: Node, table: np.ndarray, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [table[np.asarray(inputs[0], np.int8).view(np.uint8)]]


def emit(node: Node, table: np.ndarray, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_lut_s8", "mote_lut_s8_params", {"size": x.size, "table": em.const(table, "function_table")},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def overlap(node: Node, table: np.ndarray) -> list[tuple[int, Overlap]]:
    """mote_lut_s8 writes each output after reading its input: the output may start at the input (d <= 0)."""
    return [(0, Overlap(at_most=0))]


OP = register(OpDef("table_lookup", shape, prepare, reference, emit, check=check, overlap=overlap))
