"""SUM, REDUCE_MAX and REDUCE_MIN against TFLite Micro: every dtype it runs them with, several axes, keep_dims
both ways; the reference and the generated C (one build per case) bit-exact with the interpreter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder

CASES = [  # builtin, dtype, input shape, axes, keep_dims
    ("REDUCE_MAX", "int8", [1, 6, 5, 4], [1, 2], False), ("REDUCE_MAX", "float32", [2, 3, 7], [-1], True),
    ("REDUCE_MIN", "int8", [3, 4, 5], [0, 2], True), ("REDUCE_MIN", "float32", [4, 9], [0], False),
    ("SUM", "float32", [2, 5, 6], [1, 2], False), ("SUM", "int8", [1, 4, 6, 3], [1, 2], True),
    ("SUM", "int16", [5, 8], [1], False), ("SUM", "int8", [2, 3, 4], [2, 0, -1], False),
]


def reduce_model(builtin: str, dtype: str, shape: list[int], axes: list[int], keep_dims: bool,
                 rng: np.random.Generator) -> bytes:
    resolved = sorted({a % len(shape) for a in axes})
    out_shape = [1 if d in resolved else n for d, n in enumerate(shape)] if keep_dims else \
        [n for d, n in enumerate(shape) if d not in resolved]
    mb = ModelBuilder()
    q_in: dict[str, float | int] = {}
    q_out: dict[str, float | int] = {}
    if dtype != "float32":
        zero = 0 if dtype == "int16" else int(rng.integers(-20, 20))
        q_in = {"scale": float(rng.uniform(0.01, 0.1)), "zero_point": zero}
        q_out = dict(q_in) if builtin != "SUM" else {"scale": q_in["scale"] * float(rng.uniform(2, 40)),
                                                      "zero_point": 0 if dtype == "int16" else int(rng.integers(-9, 9))}
    x = mb.tensor("x", shape, dtype, **q_in)
    a = mb.tensor("axes", [len(axes)], "int32", data=np.array(axes))
    y = mb.tensor("y", out_shape, dtype, **q_out)
    mb.op(builtin, [x, a], [y], keep_dims=keep_dims)
    return mb.build([x], [y])


@pytest.mark.parametrize("builtin,dtype,shape,axes,keep_dims", CASES)
def test_matches_tflite_micro(builtin: str, dtype: str, shape: list[int], axes: list[int], keep_dims: bool,
                              check_model: Callable[..., object]) -> None:
    data = reduce_model(builtin, dtype, shape, axes, keep_dims, np.random.default_rng(len(shape) + len(axes)))
    check_model(data, seeds=3, sanitize=builtin == "SUM")


def test_int8_max_needs_the_input_quantization_on_its_output() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 3], "int8", scale=0.1, zero_point=0)
    a = mb.tensor("axes", [1], "int32", data=np.array([1]))
    y = mb.tensor("y", [2], "int8", scale=0.2, zero_point=0)
    mb.op("REDUCE_MAX", [x, a], [y])
    with pytest.raises(UnsupportedError, match="requires them equal"):
        load_tflite(mb.build([x], [y]), "m")
