"""TRANSPOSE, SLICE, STRIDED_SLICE and REVERSE_V2 against TFLite Micro in the dtypes mote declares for them:
the reference and the generated C identical with the interpreter."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.errors import UnsupportedError
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ops.strided import DTYPES

QUANT = {"int8": {"scale": 0.05, "zero_point": -2}, "int16": {"scale": 0.01, "zero_point": 0}}
# builtin -> (input shape, constant inputs, output shape, options)
SHAPES: dict[str, tuple[list[int], list[list[int]], list[int], dict[str, object]]] = {
    "TRANSPOSE": ([2, 3, 4, 5], [[0, 3, 1, 2]], [2, 5, 3, 4], {}),
    "SLICE": ([3, 6, 5], [[1, 2, 0], [2, -1, 3]], [2, 4, 3], {}),
    "STRIDED_SLICE": ([4, 6, 5], [[0, 5, 1], [4, 0, 5], [2, -2, 2]], [2, 3, 2], {}),
    "REVERSE_V2": ([3, 4, 2], [[0, 1]], [3, 4, 2], {}),
}


def strided_model(builtin: str, dtype: str, options: dict[str, object] | None = None,
                  shapes: tuple[list[int], list[list[int]], list[int]] | None = None) -> bytes:
    in_shape, constants, out_shape, default_options = SHAPES[builtin]
    if shapes is not None:
        in_shape, constants, out_shape = shapes
    mb = ModelBuilder()
    q = QUANT.get(dtype, {})
    x = mb.tensor("x", in_shape, dtype, **q)
    consts = [mb.tensor(f"c{i}", [len(c)], "int32", data=np.array(c)) for i, c in enumerate(constants)]
    y = mb.tensor("y", out_shape, dtype, **q)
    mb.op(builtin, [x, *consts], [y], **(options if options is not None else default_options))
    return mb.build([x], [y])


CASES = [(builtin, dtype.value) for builtin in SHAPES for dtype in DTYPES[builtin.lower()]]


@pytest.mark.parametrize("builtin,dtype", CASES)
def test_matches_tflite_micro(builtin: str, dtype: str, check_model: Callable[..., object]) -> None:
    check_model(strided_model(builtin, dtype), seeds=2, sanitize=dtype == "int8")


@pytest.mark.parametrize("options,shapes", [
    ({"shrink_axis_mask": 1}, ([4, 6], [[2, 0], [3, 6], [1, 1]], [6])),
    ({"begin_mask": 2, "end_mask": 2}, ([4, 6], [[1, 3], [3, 4], [1, -1]], [2, 6])),
    ({"end_mask": 1, "shrink_axis_mask": 2}, ([5, 4, 3], [[1, 2, 0], [0, 3, 3], [2, 1, 1]], [2, 3])),
])
def test_strided_slice_masks_match_tflite_micro(options: dict[str, object], shapes: tuple[list[int], ...],
                                                 check_model: Callable[..., object]) -> None:
    check_model(strided_model("STRIDED_SLICE", "float32", options, shapes), seeds=1)


@pytest.mark.parametrize("options", [{"new_axis_mask": 2}, {"ellipsis_mask": 1}, {"offset": True}])
def test_strided_slice_options_tflite_micro_refuses_are_refused(options: dict[str, object]) -> None:
    data = strided_model("STRIDED_SLICE", "float32", options, ([4, 6], [[0, 0], [4, 6], [1, 1]], [4, 6]))
    with pytest.raises(UnsupportedError, match="TFLite Micro runs none of these"):
        load_tflite(data, "m")
