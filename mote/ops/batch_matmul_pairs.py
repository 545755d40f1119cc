"""mote_batch_matmul_pairs_s8 and _single_s8: int8 BATCH_MATMUL of two activations through the convolutions'
register-blocked inner loop (four rows by four columns, two products per multiply).

The kernels pack, per batch, A's rows and B's columns as pair words (four lines a step where their bytes are
adjacent) and hand them to an rv32 assembly loop (C twins elsewhere): each pair product is taken with a rounding
constant lowered by 128 * 2^16 (mote_matmul_pair_dot), which makes it exact for every int8 pair (the plain
rounding of the convolutions' weights misses the one pair whose four values are all -128); the 128 per pair
comes back in each column's start, with the zero points' terms: -za * colsum in the column's start, -zb * rowsum
as the row's term. Where the layer has a one-multiply stage (mote.ops.output_single), proven exact on every sum
it can reach (depth times the extreme products of the two operands less their zero points),
mote_batch_matmul_pairs_single_s8 runs mote_dot_matmul_single_4x4_s8 (mote.targets.rv32.micro_matmul: one stage
row for every column, about 114 operations per set of four columns around the pair loop); else
mote_batch_matmul_pairs_s8 runs mote_dot_matmul_terms_4x4_s8 (the convolutions' loop, mote.targets.rv32.micro)
through TFLite's rows with their shortcuts. mote.ops.matmul_rqs takes the latter with RequantShift rows.

They take rows and columns in whole sets of four (the attention shapes: heads by a sequence by a head width)
and depths up to MAX_DEPTH, whose sums fit int32 (TFLite's sum wraps; so would these kernels', but not the
one-multiply proof); mote_batch_matmul_pairs_single_s8 also takes fewer than four rows (a decode step: B's bytes
read as they are, one load, multiply and add per MAC, then the one-multiply row). The others keep
mote_batch_matmul_blocked_s8.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from mote.ir import Node
from mote.ops.output_single import SingleStage, single_stage
from mote.ops.output_stage import output_stage
from mote.ops.registry import CCall, Core, Emitter, Kernel

MAX_DEPTH = 256  # the sums of a line's pair words' halves stay within 16 bits (mote_batch_matmul_pairs_body.h)
INT32_MAX = 2**31 - 1
LOWERED = 128  # what mote_matmul_pair_dot takes off each pair product
# The functions below take mote.ops.batch_matmul.BatchMatMulParams (that module imports this one).


def groups(depth: int) -> int:
    return (depth + 3) // 4


def reach(p: Any) -> tuple[int, int]:
    """The smallest and largest sum of (A - za)(B - zb) over the depth, for int8 A and B."""
    products = [(x + p.a_offset) * (y + p.b_offset) for x in (-128, 127) for y in (-128, 127)]
    return p.depth * min(products), p.depth * max(products)


@lru_cache(maxsize=8)
def _stage(multiplier: int, shift: int, offset: int, act_min: int, act_max: int, lo: int,
           hi: int) -> SingleStage | None:
    stage = single_stage(multiplier, shift, offset, act_min, act_max, lo, hi)
    return stage if stage is not None and stage.shift == 0 else None


def stage(p: Any) -> SingleStage | None:
    """The layer's one-multiply stage, or None: it keeps TFLite's two roundings."""
    lo, hi = reach(p)
    return _stage(p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max, lo, hi)


def accepts(node: Node, p: Any, few_rows: bool = False) -> str | None:
    """None when the kernels take the layer: rows and columns in sets of four (or, with `few_rows`, fewer than four
    rows and any columns: mote_batch_matmul_pairs_single_s8 reads B's bytes as they are there)."""
    if (p.rows % 4 or p.cols % 4) and not (few_rows and p.rows < 4):
        return f"{p.rows} rows by {p.cols} columns are not whole sets of four"
    if p.depth > MAX_DEPTH:
        return f"depth {p.depth} is over {MAX_DEPTH}"
    lo, hi = reach(p)
    if max(-lo, hi) + LOWERED * 2 * groups(p.depth) + 2**16 > INT32_MAX:
        return "the sums may exceed int32"
    return None


def accepts_single(node: Node, p: Any) -> str | None:
    if reason := accepts(node, p, few_rows=True):
        return reason
    return "the output needs TFLite's two roundings" if stage(p) is None else None


def scratch_bytes(node: Node, p: Any) -> int:
    return 4 * ((p.rows + p.cols) * (2 * groups(p.depth) + 1) + 2 * p.cols)


def call(node: Node, p: Any, em: Emitter, func: str, add: int, rows: str, rest: str = "NULL") -> CCall:
    """The call of `func` (a kernel taking mote_batch_matmul_pairs_params) with the stage's constant `add` and the
    emitted table `rows`."""
    za, zb = -p.a_offset, -p.b_offset
    constant = (add + LOWERED * 2 * groups(p.depth) + p.depth * za * zb + 2**31) % 2**32 - 2**31
    runs = np.tile(np.array([0, 32 * groups(p.depth)], np.int32), p.cols // 4)
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {
        "batches": int(p.a_offsets.size), "rows": p.rows, "cols": p.cols, "depth": p.depth,
        "groups": groups(p.depth), "a_offsets": em.const(p.a_offsets, "matmul_offsets"),
        "b_offsets": em.const(p.b_offsets, "matmul_offsets"), "a_row_step": p.a_row_step,
        "a_depth_step": p.a_depth_step, "b_depth_step": p.b_depth_step, "b_col_step": p.b_col_step,
        "a_zero_point": za, "b_zero_point": zb, "bias_constant": int(constant), "output_stage": rows,
        "runs": em.const(runs, "pair_runs"), "output_offset": p.output_offset, "act_min": p.act_min,
        "act_max": p.act_max, "rest": rest}
    return CCall(func, "mote_batch_matmul_pairs_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def pack_single(node: Node, p: Any, em: Emitter) -> CCall:
    s = stage(p)
    assert s is not None
    rows = np.tile(np.array([s.low, s.high, s.multiplier, 0], np.int64), (p.cols, 1)).astype(np.int32)
    return call(node, p, em, "mote_batch_matmul_pairs_single_s8", s.add, em.const(rows, "single_stage"))


def pack(node: Node, p: Any, em: Emitter) -> CCall:
    rows = output_stage(em, np.full(p.cols, p.multiplier), np.full(p.cols, p.shift), p.output_offset, p.act_min,
                        p.act_max)
    return call(node, p, em, "mote_batch_matmul_pairs_s8", 0, rows, "mote_output_rest_s8")


SINGLE_KERNEL = Kernel("mote_batch_matmul_pairs_single_s8", frozenset({Core.SCALAR}), pack_single, accepts_single,
                       scratch_bytes, twins=("mote_dot_matmul_single_4x4_s8",),
                       scratch_why="both operands packed in pair words")
KERNEL = Kernel("mote_batch_matmul_pairs_s8", frozenset({Core.SCALAR}), pack, accepts, scratch_bytes,
                twins=("mote_dot_matmul_terms_4x4_s8",), scratch_why="both operands packed in pair words")
