"""ZEROS_LIKE, FILL and SHAPE against TFLite Micro: the reference and the generated C identical with the
interpreter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.creation import DTYPES

QUANT = {"int8": {"scale": 0.05, "zero_point": 7}, "int16": {"scale": 0.01, "zero_point": 0}}


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["zeros_like"]])
def test_zeros_like_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [3, 5], dtype, **QUANT.get(dtype, {}))
    y = mb.tensor("y", [3, 5], dtype, **QUANT.get(dtype, {}))
    mb.op("ZEROS_LIKE", [x], [y])
    check_model(mb.build([x], [y]), seeds=1)


@pytest.mark.parametrize("dtype", [d.value for d in DTYPES["fill"]])
def test_fill_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    dims = mb.tensor("dims", [3], "int32", data=np.array([2, 3, 4]))
    value = mb.tensor("value", [], dtype, **QUANT.get(dtype, {}))
    y = mb.tensor("y", [2, 3, 4], dtype, **QUANT.get(dtype, {}))
    mb.op("FILL", [dims, value], [y])
    check_model(mb.build([value], [y]), seeds=2)


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_shape_matches_tflite_micro(dtype: str, check_model: Callable[..., object]) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 7, 3], dtype, **QUANT.get(dtype, {}))
    y = mb.tensor("y", [3], "int32")
    mb.op("SHAPE", [x], [y])
    check_model(mb.build([x], [y]), seeds=1)
