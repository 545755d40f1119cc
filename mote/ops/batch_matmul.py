"""BATCH_MATMUL: out[..., r, c] = sum_k A[..., r, k] * B[..., k, c] for two tensors of rank 2 to 5 (A given
transposed with adj_x, B with adj_y), the batch dimensions broadcast, as TFLite Micro computes it:

- float32: each sum starts at 0 and adds the products in order of k;
- int8: sum_k (a - a_zp)(b - b_zp) in int32, MultiplyByQuantizedMultiplier(double(s_a) * double(s_b) /
  double(s_out)), plus the output zero point, clamped to int8;
- int16: the same in int64 with TFLite's int64 requantization and zero points 0.
Where each batch's A and B start is planned at compile time (a table of offsets).

Kernels (KERNELS): int8 on a core with the DSP extension takes mote_batch_matmul_dsp_s8 (A's rows and then each pair
of B's columns widened once to int16 pairs less their zero points, two rows by two columns of SMLAD sums in
registers; mote.ops.dsp_kernels.dsp_matmul_kernel); on a scalar core with rows and columns in sets of four
mote_batch_matmul_pairs_single_s8 or mote_batch_matmul_pairs_s8 (mote.ops.batch_matmul_pairs: the convolutions'
register-blocked inner loop); other int8 layers mote_batch_matmul_blocked_s8 (both operands packed at run time into
pair words, four rows by four columns of sums in registers, the zero points folded into one term per row and per
column); float32, int16 and any int8 layer it declines take the plain triple loops (mote_batch_matmul_{f32,s8,s16}).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import batch_matmul_pairs, checks
from mote.ops.dsp_kernels import dsp_matmul_kernel, dsp_stage
from mote.ops.float_common import accumulate_taps
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64, quantize_multiplier


@dataclass(frozen=True, eq=False)
class BatchMatMulParams:
    rows: int
    cols: int
    depth: int
    a_offsets: np.ndarray  # int32 [batches]: where each batch's A starts
    b_offsets: np.ndarray
    a_row_step: int  # elements between A[r, k] and A[r + 1, k]
    a_depth_step: int
    b_depth_step: int
    b_col_step: int
    a_offset: int = 0  # -a zero point
    b_offset: int = 0
    output_offset: int = 0
    multiplier: int = 0
    shift: int = 0
    act_min: int = 0
    act_max: int = 0


def _operands(node: Node) -> tuple[Tensor, Tensor]:
    return checks.present(node, 0, "first input"), checks.present(node, 1, "second input")


def _matrices(node: Node) -> tuple[tuple[int, int], tuple[int, int], tuple[int, ...]]:
    """(A's rows and depth, B's depth and columns, the broadcast batch shape)."""
    a, b = _operands(node)
    ar, ak = (a.shape[-1], a.shape[-2]) if attr(node, "adj_x") else (a.shape[-2], a.shape[-1])
    bk, bc = (b.shape[-1], b.shape[-2]) if attr(node, "adj_y") else (b.shape[-2], b.shape[-1])
    try:
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    except ValueError:
        raise checks.fail(node, f"the batch dimensions of {list(a.shape)} and {list(b.shape)} do not broadcast") \
            from None
    return (ar, ak), (bk, bc), batch


def check(node: Node) -> None:
    checks.input_count(node, 2)
    a, b = _operands(node)
    checks.dtype(node, a, "first input", DType.FLOAT32, DType.INT8, DType.INT16)
    checks.dtype(node, b, "second input", a.dtype)
    out = node.outputs[0]
    checks.dtype(node, out, "output", a.dtype)
    for t, role in ((a, "first input"), (b, "second input")):
        if not 2 <= len(t.shape) <= 5:
            raise checks.fail(node, f"the {role} is {len(t.shape)}-D; BATCH_MATMUL takes 2-D to 5-D")
    for flag in ("adj_x", "adj_y"):
        if not isinstance(attr(node, flag), bool):
            raise checks.fail(node, f"attribute {flag} must be true or false")
    (_, ak), (bk, _), _ = _matrices(node)
    if ak != bk:
        raise checks.fail(node, f"inner dimensions differ: {ak} and {bk}")
    if a.dtype is DType.FLOAT32:
        return
    for t, role in ((a, "first input"), (b, "second input"), (out, "output")):
        checks.quantized(node, t, role)
        if a.dtype is DType.INT16 and t.zero_point != 0:
            raise checks.fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro "
                                    "requires 0")


def shape(node: Node) -> list[tuple[int, ...]]:
    (ar, _), (_, bc), batch = _matrices(node)
    return [(*batch, ar, bc)]


def _starts(t: Tensor, batch: tuple[int, ...]) -> np.ndarray:
    """Each output batch's first element of `t`, its batch dimensions broadcast."""
    matrix = t.shape[-2] * t.shape[-1]
    index = np.arange(int(np.prod(t.shape[:-2], dtype=np.int64)), dtype=np.int64).reshape(t.shape[:-2]) * matrix
    return np.broadcast_to(index, batch).reshape(-1).astype(np.int32)


def prepare(node: Node) -> BatchMatMulParams:
    a, b = _operands(node)
    out = node.outputs[0]
    (rows, depth), (_, cols), batch = _matrices(node)
    a_steps = (1, a.shape[-1]) if attr(node, "adj_x") else (a.shape[-1], 1)
    b_steps = (1, b.shape[-1]) if attr(node, "adj_y") else (b.shape[-1], 1)
    plan = (rows, cols, depth, _starts(a, batch), _starts(b, batch), *a_steps, *b_steps)
    if a.dtype is DType.FLOAT32:
        return BatchMatMulParams(*plan)
    info = np.iinfo(out.dtype.np)
    m, s = quantize_multiplier(float(np.float32(a.scale)) * float(np.float32(b.scale)) / float(np.float32(out.scale)))
    return BatchMatMulParams(*plan, -a.zero_point, -b.zero_point, out.zero_point, m, s, int(info.min),
                             int(info.max))


def _as_matrices(node: Node, inputs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    a, b = (np.asarray(v) for v in inputs)
    if attr(node, "adj_x"):
        a = np.swapaxes(a, -1, -2)
    if attr(node, "adj_y"):
        b = np.swapaxes(b, -1, -2)
    return a, b


def reference(node: Node, p: BatchMatMulParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = _as_matrices(node, inputs)
    out = node.outputs[0]
    if out.dtype is DType.FLOAT32:
        total = np.zeros(out.shape, np.float32)
        for k in range(p.depth):  # in order: numpy's own sums are pairwise
            total = accumulate_taps(total, a[..., :, k:k + 1] * b[..., k:k + 1, :])
        return [total]
    acc = np.matmul(a.astype(np.int64) + p.a_offset, b.astype(np.int64) + p.b_offset)
    if out.dtype is DType.INT8:
        scaled = multiply_by_quantized_multiplier((acc + 2**31) % 2**32 - 2**31, p.multiplier, p.shift)
    else:
        scaled = multiply_by_quantized_multiplier_64(acc, p.multiplier, p.shift)
    return [np.clip(scaled + p.output_offset, p.act_min, p.act_max).astype(out.dtype.np).reshape(out.shape)]


def emit(node: Node, p: BatchMatMulParams, em: Emitter) -> CCall:
    a, b = _operands(node)
    suffix = {DType.FLOAT32: "f32", DType.INT8: "s8", DType.INT16: "s16"}[a.dtype]
    fields: dict[str, int | str] = {
        "batches": int(p.a_offsets.size), "rows": p.rows, "cols": p.cols, "depth": p.depth,
        "a_offsets": em.const(p.a_offsets, "matmul_offsets"), "b_offsets": em.const(p.b_offsets, "matmul_offsets"),
        "a_row_step": p.a_row_step, "a_depth_step": p.a_depth_step, "b_depth_step": p.b_depth_step,
        "b_col_step": p.b_col_step}
    if suffix != "f32":
        fields.update(a_offset=p.a_offset, b_offset=p.b_offset, output_offset=p.output_offset,
                      multiplier=p.multiplier, shift=p.shift, act_min=p.act_min, act_max=p.act_max)
    return CCall(f"mote_batch_matmul_{suffix}", "mote_batch_matmul_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def _pairs(p: BatchMatMulParams) -> int:
    return (p.depth + 1) // 2


def _blocked_scratch(node: Node, p: BatchMatMulParams) -> int:
    rows4 = -(-p.rows // 4) * 4
    return 4 * (rows4 * _pairs(p) + rows4 + 4 * _pairs(p) + 4 * rows4)


def _blocked_fields(p: BatchMatMulParams, em: Emitter, stage: str) -> dict[str, int | str]:
    return {
        "batches": int(p.a_offsets.size), "rows": p.rows, "cols": p.cols, "depth": p.depth, "pairs": _pairs(p),
        "a_offsets": em.const(p.a_offsets, "matmul_offsets"), "b_offsets": em.const(p.b_offsets, "matmul_offsets"),
        "a_row_step": p.a_row_step, "a_depth_step": p.a_depth_step, "b_depth_step": p.b_depth_step,
        "b_col_step": p.b_col_step, "a_zero_point": -p.a_offset, "b_zero_point": -p.b_offset,
        "output_stage": stage, "output_offset": p.output_offset, "act_min": p.act_min, "act_max": p.act_max}


def _pack_blocked(node: Node, p: BatchMatMulParams, em: Emitter) -> CCall:
    a, b = _operands(node)
    stage = output_stage(em, np.array([p.multiplier]), np.array([p.shift]), p.output_offset, p.act_min, p.act_max)
    return CCall("mote_batch_matmul_blocked_s8", "mote_batch_matmul_blocked_params", _blocked_fields(p, em, stage),
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def _dsp_stage(p: BatchMatMulParams) -> np.ndarray | None:
    """The DSP kernel's output stage (mote_dsp.h's row) for sums of magnitude at most depth * 255 * 255."""
    return dsp_stage(np.array([p.multiplier]), np.array([p.shift]), p.depth * 255 * 255)


def _pack_dsp(node: Node, p: BatchMatMulParams, em: Emitter) -> CCall:
    """The blocked kernel's parameters (its pair count unused), the output stage a row of mote_dsp.h."""
    a, b = _operands(node)
    rows = _dsp_stage(p)
    assert rows is not None, "the record's accept test checks the output stage"
    return CCall("mote_batch_matmul_dsp_s8", "mote_batch_matmul_blocked_params",
                 _blocked_fields(p, em, em.const(rows.reshape(-1), "dsp_stage")),
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def _dsp_declines(node: Node, p: BatchMatMulParams) -> str | None:
    return "the 32-bit output stage may overflow" if _dsp_stage(p) is None else None


KERNELS = (
    dsp_matmul_kernel("mote_batch_matmul_dsp_s8", _pack_dsp, lambda p: p, _dsp_declines),
    Kernel("mote_batch_matmul_f32", frozenset(Core), emit, dtypes=frozenset({DType.FLOAT32})),
    Kernel("mote_batch_matmul_s16", frozenset(Core), emit, dtypes=frozenset({DType.INT16})),
    batch_matmul_pairs.SINGLE_KERNEL,
    batch_matmul_pairs.KERNEL,
    Kernel("mote_batch_matmul_blocked_s8", frozenset(Core), _pack_blocked, scratch_bytes=_blocked_scratch,
           scratch_why="both operands packed in pair words"),
    Kernel("mote_batch_matmul_s8", frozenset(Core), emit),
)


def macs(node: Node) -> int:
    (rows, depth), (_, cols), batch = _matrices(node)
    return int(np.prod(batch, dtype=np.int64)) * rows * cols * depth


OP = register(OpDef("batch_matmul", shape, prepare, reference, emit, macs, tflite=("BATCH_MATMUL",), check=check,
                    kernels=KERNELS,
                    attrs={"adj_x": False, "adj_y": False}, dtypes=(DType.INT8, DType.INT16, DType.FLOAT32)))
