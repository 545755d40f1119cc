"""MATMUL_RQS: an integer-dialect product of two int8 activations and its RequantShift as one int8-output layer.

    out[..., i, j] = RequantShift(sum_t (a[..., i, t] + a_offset) * (b[..., t, j] + b_offset))
exactly as matmul_s32 (alpha 1, no bias; the int32 sum wraps as Deeploy's kernel's does) followed by
requant_shift computes it (mote.passes.fuse_requant makes this op of the pair), the RequantShift per tensor
(one mul and add) or per column (N of each, over the last axis): the accumulators stay in registers and each
output goes through a RequantShift row (mote.ops.requant_stage) in place of TFLite's requantization. Kernels:
on a core with the DSP extension, per tensor, mote_batch_matmul_dsp_requant_shift_s8 (mote_batch_matmul_dsp_s8's
body: SMLAD on operands widened once, two rows by two columns of sums); on a scalar core, rows and columns in sets
of four, mote_batch_matmul_pairs_requant_shift_s8 (mote.ops.batch_matmul_pairs: the convolutions'
register-blocked pair loop, a table row per column); else mote_batch_matmul_requant_shift_s8 (per tensor) or
mote_batch_matmul_requant_shift_cols_s8 (a row per column), mote_batch_matmul_blocked_s8's body (both operands
packed into pair words, four rows by four columns of sums). Every kernel's sum wraps modulo 2^32 as Deeploy's does.

inputs [a int8 [..., M, K], b int8 [..., K, N], mul int32 [1 or N], add int32 [1 or N]]; attrs divisor,
n_levels, signed (as requant_shift).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import batch_matmul_pairs, matmul_s32, requant_shift
from mote.ops.batch_matmul import BatchMatMulParams
from mote.ops.dsp_kernels import dsp_matmul_kernel
from mote.ops.matmul_s32 import MatMulS32Params
from mote.ops.registry import REQUIRED, CCall, Core, Emitter, Kernel, OpDef, register
from mote.ops.requant_shift import RequantShiftParams
from mote.ops.requant_stage import requant_shift_rows

RQS_ATTRS = ("divisor", "n_levels", "signed")


@dataclass(frozen=True, eq=False)
class MatMulRqsParams:
    product: MatMulS32Params
    requant: RequantShiftParams
    blocked: BatchMatMulParams  # the blocked kernel's geometry and zero points


def parts(node: Node) -> tuple[Node, Node]:
    """The matmul_s32 and requant_shift nodes this layer stands for (sharing an int32 accumulator tensor)."""
    a, b, mul, add = node.inputs
    out = node.outputs[0]
    acc = Tensor(f"{out.name}_acc", out.shape, DType.INT32)
    product = Node("matmul_s32", node.name, [a, b], [acc], {"alpha": 1})
    rqs = Node("requant_shift", node.name, [acc, mul, add], [out], {k: node.attrs[k] for k in RQS_ATTRS})
    return product, rqs


def why_not(m: MatMulS32Params, r: RequantShiftParams) -> str | None:
    """None when the blocked kernel computes the pair exactly, else why not."""
    if m.a_bytes != 1 or m.b_bytes != 1:
        return "an int32 operand"
    if m.alpha != 1 or m.bias is not None:
        return "alpha or a bias"
    if not (-128 <= -m.a_offset <= 127 and -128 <= -m.b_offset <= 127):
        return "a zero point outside int8"
    if r.channels not in (1, m.n) or r.input_offset != 0:
        return "requantization neither per tensor nor per column"
    if r.ties_away:
        return "exact halves rounded away from zero (an integer mean)"
    if r.divisor >= 2**32:
        return "divisor of 2^32 or more"
    return None


def prepare(node: Node) -> MatMulRqsParams:
    product, rqs = parts(node)
    m, r = matmul_s32.prepare(product), requant_shift.prepare(rqs)
    if reason := why_not(m, r):
        raise UnsupportedError(f"node {node.name!r} (matmul_rqs): {reason}")
    starts = [np.arange(m.batches, dtype=np.int32) * step for step in (m.a_batch_step, m.b_batch_step)]
    blocked = BatchMatMulParams(m.m, m.n, m.k, starts[0], starts[1], m.k, 1, m.n, 1, m.a_offset, m.b_offset,
                                r.output_offset, 0, 0, r.act_min + r.output_offset, r.act_max + r.output_offset)
    return MatMulRqsParams(m, r, blocked)


def shape(node: Node) -> list[tuple[int, ...]]:
    return matmul_s32.shape(parts(node)[0])


def reference(node: Node, p: MatMulRqsParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    product, _ = parts(node)
    acc = matmul_s32.reference(product, p.product, inputs[:2])[0]
    out = requant_shift.outputs(acc.reshape(-1, p.requant.channels), p.requant)
    return [out.astype(np.int8).reshape(node.outputs[0].shape)]


def _pack(node: Node, p: MatMulRqsParams, em: Emitter, func: str = "mote_batch_matmul_requant_shift_s8") -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    q = p.blocked
    fields: dict[str, int | str] = {
        "batches": int(q.a_offsets.size), "rows": q.rows, "cols": q.cols, "depth": q.depth,
        "pairs": (q.depth + 1) // 2, "a_offsets": em.const(q.a_offsets, "matmul_offsets"),
        "b_offsets": em.const(q.b_offsets, "matmul_offsets"), "a_row_step": q.a_row_step,
        "a_depth_step": q.a_depth_step, "b_depth_step": q.b_depth_step, "b_col_step": q.b_col_step,
        "a_zero_point": -q.a_offset, "b_zero_point": -q.b_offset,
        "output_stage": em.const(requant_shift_rows(p.requant, p.requant.channels), "rqs_output_stage"),
        "output_offset": q.output_offset, "act_min": q.act_min, "act_max": q.act_max}
    return CCall(func, "mote_batch_matmul_blocked_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def _scratch(node: Node, p: MatMulRqsParams) -> int:
    rows4, pairs = -(-p.blocked.rows // 4) * 4, (p.blocked.depth + 1) // 2
    return 4 * (rows4 * pairs + rows4 + 4 * pairs + 4 * rows4)


def macs(node: Node) -> int:
    return matmul_s32.macs(parts(node)[0])


def _pack_dsp(node: Node, p: MatMulRqsParams, em: Emitter) -> CCall:
    return _pack(node, p, em, "mote_batch_matmul_dsp_requant_shift_s8")


def _pack_cols(node: Node, p: MatMulRqsParams, em: Emitter) -> CCall:
    return _pack(node, p, em, "mote_batch_matmul_requant_shift_cols_s8")


def _pack_pairs(node: Node, p: MatMulRqsParams, em: Emitter) -> CCall:
    rows = em.const(requant_shift_rows(p.requant, p.blocked.cols), "rqs_output_stage")
    return batch_matmul_pairs.call(node, p.blocked, em, "mote_batch_matmul_pairs_requant_shift_s8", 0, rows,
                                   "mote_output_rest_any_s8")


def _per_tensor(node: Node, p: MatMulRqsParams) -> str | None:
    return None if p.requant.channels == 1 else "RequantShift per column"


KERNELS = (dsp_matmul_kernel("mote_batch_matmul_dsp_requant_shift_s8", _pack_dsp, lambda p: p.blocked, _per_tensor),
           Kernel("mote_batch_matmul_pairs_requant_shift_s8", frozenset({Core.SCALAR}), _pack_pairs,
                  lambda node, p: batch_matmul_pairs.accepts(node, p.blocked),
                  lambda node, p: batch_matmul_pairs.scratch_bytes(node, p.blocked),
                  twins=("mote_dot_matmul_terms_4x4_s8",), scratch_why="both operands packed in pair words"),
           Kernel("mote_batch_matmul_requant_shift_s8", frozenset(Core), _pack, _per_tensor, _scratch,
                  scratch_why="both operands packed in pair words"),
           Kernel("mote_batch_matmul_requant_shift_cols_s8", frozenset(Core), _pack_cols, scratch_bytes=_scratch,
                  scratch_why="both operands packed in pair words"))

OP = register(OpDef("matmul_rqs", shape, prepare, reference, _pack, macs, kernels=KERNELS,
                    attrs={"divisor": REQUIRED, "n_levels": REQUIRED, "signed": REQUIRED}))
