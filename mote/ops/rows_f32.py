"""LOG_SOFTMAX and L2_NORMALIZATION in float32: row by row over the last axis, in TFLite Micro's float
reference order.

  log_softmax       m = max of the row; s = sum of exp(x_c - m), left to right; out_c = (x_c - m) - log(s)
  l2_normalization  n = sqrt(sum of x_c * x_c, left to right), at least 1e-6; out_c = x_c / n
exp and log are mote's own (mote.ops.float_math), the root is correctly rounded: L2_NORMALIZATION is
identical to TFLite Micro, LOG_SOFTMAX within the ULP bound of the transcendental functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import l2_norm_int, log_softmax_int
from mote.ops.float_common import unary_float
from mote.ops.float_math import expf, logf
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register

F32 = np.float32
EPSILON = F32(1e-6)  # TFLite's L2 normalization floor of the norm


@dataclass(frozen=True)
class RowsParams:
    rows: int
    depth: int


def prepare(node: Node) -> RowsParams:
    x = node.inputs[0]
    assert x is not None
    depth = x.shape[-1] if x.shape else 1
    return RowsParams(x.size // max(depth, 1), depth)


def _sum_in_order(values: np.ndarray) -> np.ndarray:
    total = np.zeros((values.shape[0], 1), F32)
    for c in range(values.shape[1]):  # left to right, as the reference kernels sum
        total = (total + values[:, c:c + 1]).astype(F32)
    return total


def reference(node: Node, p: RowsParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], F32).reshape(p.rows, p.depth)
    with np.errstate(all="ignore"):
        if node.op == "log_softmax":
            shifted = (x - x.max(axis=1, keepdims=True)).astype(F32)
            out = (shifted - logf(_sum_in_order(expf(shifted)))).astype(F32)
        else:
            norm = np.sqrt(_sum_in_order((x * x).astype(F32)))
            out = (x / np.maximum(norm, EPSILON)).astype(F32)
    return [out.reshape(inputs[0].shape)]


def emit(node: Node, p: RowsParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall(f"mote_{node.op}_f32", "mote_rows_f32_params", {"rows": p.rows, "depth": p.depth},
                 [em.tensor(x), em.tensor(node.outputs[0])])


def _shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


# LOG_SOFTMAX also runs on int8 (mote.ops.log_softmax_int).
_LOG = {DType.FLOAT32: (unary_float, prepare, reference, emit), DType.INT8: log_softmax_int.ROW}
_check_log, _prepare_log, _reference_log, _emit_log = dtype_columns(_LOG)
register(OpDef("log_softmax", _shape, _prepare_log, _reference_log, _emit_log, tflite=("LOG_SOFTMAX",),
               check=_check_log, dtypes=tuple(_LOG)))
# L2_NORMALIZATION also runs on int8 (mote.ops.l2_norm_int).
_L2 = {DType.FLOAT32: (unary_float, prepare, reference, emit), DType.INT8: l2_norm_int.ROW}
_check_l2, _prepare_l2, _reference_l2, _emit_l2 = dtype_columns(_L2)
register(OpDef("l2_normalization", _shape, _prepare_l2, _reference_l2, _emit_l2, tflite=("L2_NORMALIZATION",),
               check=_check_l2, dtypes=tuple(_L2)))
