"""SPLIT and SPLIT_V against TFLite Micro in every dtype it runs them with: the reference and the generated C
(several outputs from one kernel call) bit-exact with the interpreter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder

QUANT = {"int8": {"scale": 0.05, "zero_point": -4}, "int16": {"scale": 0.01, "zero_point": 0}}


def split_model(builtin: str, dtype: str, shape: list[int], axis: int, sizes: list[int]) -> bytes:
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", shape, dtype, **q)
    resolved = [s if s != -1 else shape[axis] - sum(v for v in sizes if v != -1) for s in sizes]
    ys = [mb.tensor(f"y{i}", [s if d == axis % len(shape) else n for d, n in enumerate(shape)], dtype, **q)
          for i, s in enumerate(resolved)]
    ax = mb.tensor("axis", [], "int32", data=np.array(axis))
    if builtin == "SPLIT":
        mb.op("SPLIT", [ax, x], ys, num_splits=len(ys))
    else:
        sz = mb.tensor("sizes", [len(sizes)], "int32", data=np.array(sizes))
        mb.op("SPLIT_V", [x, sz, ax], ys, num_splits=len(ys))
    return mb.build([x], ys)


@pytest.mark.parametrize("builtin,dtype,shape,axis,sizes", [
    ("SPLIT", "float32", [2, 6, 4], 1, [2, 2, 2]), ("SPLIT", "int8", [1, 8, 3], -1, [1, 1, 1]),
    ("SPLIT", "int16", [4, 6], 0, [2, 2]), ("SPLIT", "int32", [6], 0, [3, 3]),
    ("SPLIT_V", "float32", [1, 10, 3], 1, [3, -1, 5]), ("SPLIT_V", "int8", [2, 3, 7], 2, [1, 4, 2]),
    ("SPLIT_V", "int16", [5, 4], 0, [4, 1]), ("SPLIT_V", "int32", [3, 9], -1, [9]),
])
def test_matches_tflite_micro(builtin: str, dtype: str, shape: list[int], axis: int, sizes: list[int],
                              check_model: Callable[..., object]) -> None:
    check_model(split_model(builtin, dtype, shape, axis, sizes), seeds=2, sanitize=dtype == "int8")


def test_sizes_that_do_not_add_up_are_refused() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [6], "float32")
    ys = [mb.tensor("a", [2], "float32"), mb.tensor("b", [2], "float32")]
    sz = mb.tensor("sizes", [2], "int32", data=np.array([2, 2]))
    ax = mb.tensor("axis", [], "int32", data=np.array(0))
    mb.op("SPLIT_V", [x, sz, ax], ys, num_splits=2)
    with pytest.raises(UnsupportedError, match="do not add up"):
        load_tflite(mb.build([x], ys), "m")
