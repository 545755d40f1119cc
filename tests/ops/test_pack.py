"""PACK, UNPACK, EXPAND_DIMS and CONCATENATION of the byte-copied dtypes against TFLite Micro: the reference and
the generated C identical with the interpreter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.concatenation_f32 import BYTE_DTYPES
from mote.ops.pack import DTYPES

QUANT = {"int8": {"scale": 0.05, "zero_point": 1}, "int16": {"scale": 0.01, "zero_point": 0}}


def pack_model(dtype: str, axis: int) -> bytes:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    parts = [mb.tensor(f"x{i}", [2, 3], dtype, **q) for i in range(3)]
    out = [2, 3]
    out.insert(axis % 3, 3)
    y = mb.tensor("y", out, dtype, **q)
    mb.op("PACK", parts, [y], axis=axis, values_count=3)
    return mb.build(parts, [y])


def unpack_model(dtype: str, axis: int) -> bytes:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", [2, 4, 3], dtype, **q)
    shape = [2, 4, 3]
    n = shape.pop(axis % 3)
    ys = [mb.tensor(f"y{i}", shape, dtype, **q) for i in range(n)]
    mb.op("UNPACK", [x], ys, axis=axis, num=n)
    return mb.build([x], ys)


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["pack"]])
def test_pack_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(pack_model(dtype, 1), seeds=2, sanitize=dtype == "int8")
    check_model(pack_model(dtype, -1), seeds=1)


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["unpack"]])
def test_unpack_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(unpack_model(dtype, 1), seeds=2, sanitize=dtype == "int8")
    check_model(unpack_model(dtype, 0), seeds=1)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_expand_dims_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", [3, 4], dtype, **q)
    axis = mb.tensor("axis", [1], "int32", data=np.array([-1]))
    y = mb.tensor("y", [3, 4, 1], dtype, **q)
    mb.op("EXPAND_DIMS", [x, axis], [y])
    check_model(mb.build([x], [y]), seeds=1)


@pytest.mark.parametrize("dtype", [d.value for d in BYTE_DTYPES])
def test_concatenation_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    a = mb.tensor("a", [2, 3, 2], dtype, **q)
    b = mb.tensor("b", [2, 1, 2], dtype, **q)
    y = mb.tensor("y", [2, 4, 2], dtype, **q)
    mb.op("CONCATENATION", [a, b], [y], axis=1)
    check_model(mb.build([a, b], [y]), seeds=2)
