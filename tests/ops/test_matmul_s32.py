"""MATMUL_S32 (the integer dialect's MatMul / Gemm) and ADD_S32's sub and mul: the reference against an
independent Python evaluation (exact integers, then int32's wrap), and the generated C under ASan/UBSan
against the reference: int8 and int32 operands, offsets (unsigned values), batches with one shared matrix,
alpha and a bias, extreme values that overflow int32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.reference import interpret
from mote.targets.host import build_host

UNSIGNED = Quant((1.0,), (-128,))


def _wrap(values: list[int]) -> np.ndarray:
    return np.asarray([((v + 2**31) % 2**32) - 2**31 for v in values], np.int64)


def _exact(a: np.ndarray, b: np.ndarray, a_off: int, b_off: int, alpha: int, bias: np.ndarray | None) -> np.ndarray:
    """Python integers, batch by batch (numpy broadcasting of the batch axes), then int32's wrap."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    out = []
    for idx in np.ndindex(*batch):
        am, bm = a[idx].tolist(), b[idx].tolist()
        for i in range(len(am)):
            for j in range(len(bm[0])):
                acc = alpha * sum((am[i][t] + a_off) * (bm[t][j] + b_off) for t in range(len(bm)))
                out.append(acc + (0 if bias is None else int(bias[i, j])))
    return _wrap(out).reshape(*batch, a.shape[-2], b.shape[-1])


def _operand(name: str, data: np.ndarray | None, shape: tuple[int, ...], dtype: DType, unsigned: bool) -> Tensor:
    return Tensor(name, shape, dtype, UNSIGNED if unsigned else Quant((1.0,), (0,)), data)


@pytest.mark.parametrize("a_shape, b_shape, a_type, b_type, b_const, alpha, with_bias", [
    ((2, 3, 5, 7), (2, 3, 7, 4), DType.INT8, DType.INT8, False, 1, False),
    ((4, 5, 6), (6, 3), DType.INT8, DType.INT8, True, 2, True),
    ((3, 2, 9), (1, 9, 5), DType.INT32, DType.INT8, False, 1, True),
    ((2, 4, 6), (2, 6, 3), DType.INT32, DType.INT32, False, -3, False),
])
def test_matmul_s32_reference_and_c(tmp_path: Path, a_shape: tuple[int, ...], b_shape: tuple[int, ...], a_type: DType,
                                    b_type: DType, b_const: bool, alpha: int, with_bias: bool) -> None:
    rng = np.random.default_rng(len(a_shape) * 10 + alpha)
    unsigned_a = a_type is DType.INT8 and not b_const

    def values(shape: tuple[int, ...], dtype: DType) -> np.ndarray:
        if dtype is DType.INT8:
            return rng.integers(-128, 128, shape).astype(np.int8)
        extreme = rng.choice(np.array([-2**31, 2**31 - 1, -1, 0, 1]), shape)
        return np.where(rng.integers(0, 3, shape) == 0, extreme, rng.integers(-2**20, 2**20, shape)).astype(np.int32)

    b_data = values(b_shape, b_type)
    a = _operand("a", None, a_shape, a_type, unsigned_a)
    b = _operand("b", b_data if b_const else None, b_shape, b_type, False)
    m, n = a_shape[-2], b_shape[-1]
    bias_data = rng.integers(-2**31, 2**31, (m, n)).astype(np.int32) if with_bias else None
    bias = None if bias_data is None else Tensor("bias", (m, n), DType.INT32, None, bias_data)
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    out = Tensor("y", (*batch, m, n), DType.INT32, Quant((1.0,), (0,)))
    node = Node("matmul_s32", "mm", [a, b, bias], [out], {"alpha": alpha})
    inputs = [a] if b_const else [a, b]
    graph = Graph("matmul_s32", inputs, [out], [node])
    feeds = {"a": values(a_shape, a_type)}
    if not b_const:
        feeds["b"] = b_data
    expected = interpret(graph, feeds)["y"]
    exact = _exact(feeds["a"].astype(np.int64), b_data.astype(np.int64), 128 if unsigned_a else 0, 0, alpha,
                   bias_data)
    assert np.array_equal(expected, exact)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    assert np.array_equal(binary.run(feeds)[0]["y"], expected)


@pytest.mark.parametrize("arith", ["add", "sub", "mul"])
def test_add_s32_sub_and_mul_wrap_like_int32(tmp_path: Path, arith: str) -> None:
    rng = np.random.default_rng(3)
    a = Tensor("a", (3, 5), DType.INT32, Quant((1.0,), (0,)))
    b = Tensor("b", (5,), DType.INT8, UNSIGNED)
    out = Tensor("y", (3, 5), DType.INT32, Quant((1.0,), (0,)))
    graph = Graph("arith", [a, b], [out], [Node("add_s32", "op", [a, b], [out], {"arith": arith})])
    feeds = {"a": np.asarray(rng.choice([-2**31, 2**31 - 1, -7, 0, 12345], (3, 5)), np.int32),
             "b": rng.integers(-128, 128, (5,)).astype(np.int8)}
    bv = feeds["b"].astype(np.int64) + 128
    av = feeds["a"].astype(np.int64)
    exact = {"add": av + bv, "sub": av - bv, "mul": av * bv}[arith]
    expected = interpret(graph, feeds)["y"]
    assert np.array_equal(expected, _wrap(exact.reshape(-1).tolist()).reshape(3, 5))
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    assert np.array_equal(binary.run(feeds)[0]["y"], expected)
