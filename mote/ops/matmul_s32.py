"""MATMUL_S32: exact integer (batched) matrix product to int32, no requantization (the integer dialect's MatMul
and Gemm, Deeploy's semantics):

    out[..., i, j] = alpha * sum_t (a[..., i, t] + a_offset) * (b[..., t, j] + b_offset) + bias[i, j]
wrapped to int32 as Deeploy's int32 kernels compute it (its accumulator is int32). Offsets are minus the inputs'
zero points. Either operand may be an activation or a constant: activation x weights and activation x
activation alike.

inputs [a int8|int32 [..., M, K], b int8|int32 [..., K, N], bias int32 [M, N] (constant) or absent];
attrs alpha (int). Each operand's batch dimensions equal the output's (numpy broadcasting of a[:-2] and b[:-2])
or hold one matrix (repeated for every batch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register


@dataclass(frozen=True)
class MatMulS32Params:
    batches: int
    m: int
    k: int
    n: int
    a_bytes: int  # 1 (int8) or 4 (int32)
    b_bytes: int
    a_offset: int
    b_offset: int
    a_batch_step: int  # elements from one batch's matrix to the next: m * k, or 0 (one matrix for all)
    b_batch_step: int
    alpha: int
    bias: np.ndarray | None  # int32 [m * n]


def _batch(a: Tensor, b: Tensor) -> tuple[int, ...]:
    return tuple(int(d) for d in np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))


def shape(node: Node) -> list[tuple[int, ...]]:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return [(*_batch(a, b), a.shape[-2], b.shape[-1])]


def check(node: Node) -> None:
    checks.input_count(node, 2, 3)
    a, b = checks.present(node, 0, "a"), checks.present(node, 1, "b")
    for t, what in ((a, "a"), (b, "b")):
        if t.dtype not in (DType.INT8, DType.INT32) or len(t.shape) < 2:
            raise checks.fail(node, f"{what} must be an int8 or int32 matrix (rank 2 or more)")
    if a.shape[-1] != b.shape[-2]:
        raise checks.fail(node, f"inner dimensions differ: {list(a.shape)} x {list(b.shape)}")
    try:
        batch = _batch(a, b)
    except ValueError:
        raise checks.fail(node, f"batch dimensions {list(a.shape[:-2])} and {list(b.shape[:-2])} do not "
                                "broadcast") from None
    for t, what in ((a, "a"), (b, "b")):
        own = (1,) * (len(batch) - len(t.shape) + 2) + tuple(t.shape[:-2])
        if math.prod(own) != 1 and own != batch:
            raise checks.fail(node, f"{what}'s batch dimensions {list(t.shape[:-2])} must be the output's "
                                    f"{list(batch)} or hold one matrix")
    bias = node.inputs[2] if len(node.inputs) > 2 else None
    if bias is not None and (bias.data is None or bias.dtype is not DType.INT32
                             or bias.size != a.shape[-2] * b.shape[-1]):
        raise checks.fail(node, "the bias must be a constant int32 [M, N]")
    if node.outputs[0].dtype is not DType.INT32:
        raise checks.fail(node, "the output must be int32")


def _offset(t: Tensor) -> int:
    return 0 if t.quant is None else -t.quant.zero_point[0]


def prepare(node: Node) -> MatMulS32Params:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    bias = node.inputs[2] if len(node.inputs) > 2 else None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batches = math.prod(_batch(a, b))
    alpha = int(attr(node, "alpha"))
    if not -2**31 <= alpha < 2**31:
        raise UnsupportedError(f"node {node.name!r} (matmul_s32): alpha {alpha} does not fit int32")
    return MatMulS32Params(batches, m, k, n, a.dtype.itemsize, b.dtype.itemsize, _offset(a), _offset(b),
                           0 if math.prod(a.shape[:-2]) == 1 else m * k, 0 if math.prod(b.shape[:-2]) == 1 else k * n,
                           alpha, None if bias is None else np.asarray(bias.data, np.int32).reshape(-1))


def _wrap(x: np.ndarray) -> np.ndarray:
    low = (x.astype(np.int64) & 0xFFFFFFFF).astype(np.int64)  # int64 arithmetic wraps mod 2^64: low bits exact
    return np.where(low >= 2**31, low - 2**32, low).astype(np.int32)


def reference(node: Node, p: MatMulS32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a = inputs[0].astype(np.int64) + p.a_offset
    b = inputs[1].astype(np.int64) + p.b_offset
    with np.errstate(over="ignore"):
        acc = np.matmul(a, b) * np.int64(p.alpha)
        if p.bias is not None:
            acc = acc + p.bias.astype(np.int64).reshape(p.m, p.n)
    return [_wrap(acc)]


def emit(node: Node, p: MatMulS32Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {k: v for k, v in vars(p).items() if k != "bias"}
    fields["bias"] = "NULL" if p.bias is None else em.const(p.bias, "bias")
    return CCall("mote_matmul_s32", "mote_matmul_s32_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    a = node.inputs[0]
    assert a is not None
    return node.outputs[0].size * a.shape[-1]


OP = register(OpDef("matmul_s32", shape, prepare, reference, emit, macs, check=check, attrs={"alpha": 1},
                    dtypes=(DType.INT8, DType.INT32)))
