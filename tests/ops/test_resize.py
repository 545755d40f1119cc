"""RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR against TFLite Micro: up and down, odd ratios, align_corners
and half_pixel_centers, float32, int8 (and int16 nearest); the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def resize_model(builtin: str, dtype: str, in_hw: tuple[int, int], out_hw: tuple[int, int], align: bool = False,
                 half: bool = False) -> bytes:
    q = {"scale": 0.05, "zero_point": -3} if dtype in ("int8", "int16") else {}
    if dtype == "int16":
        q["zero_point"] = 0
    mb = ModelBuilder()
    x = mb.tensor("x", [2, *in_hw, 3], dtype, **q)
    size = mb.tensor("size", [2], "int32", data=np.array(out_hw))
    y = mb.tensor("y", [2, *out_hw, 3], dtype, **q)
    mb.op(builtin, [x, size], [y], align_corners=align, half_pixel_centers=half)
    return mb.build([x], [y])


SIZES = [((4, 5), (8, 10)), ((5, 7), (3, 4)), ((3, 3), (7, 5)), ((6, 4), (6, 4)), ((1, 5), (4, 1))]
MODES = [(False, False), (True, False), (False, True)]


@pytest.mark.parametrize("builtin,dtype", [("RESIZE_NEAREST_NEIGHBOR", "float32"), ("RESIZE_NEAREST_NEIGHBOR", "int8"),
                                           ("RESIZE_NEAREST_NEIGHBOR", "int16"), ("RESIZE_BILINEAR", "float32"),
                                           ("RESIZE_BILINEAR", "int8")])
@pytest.mark.parametrize("sizes", SIZES, ids=str)
@pytest.mark.parametrize("align,half", MODES)
def test_reference_matches_tflm(builtin: str, dtype: str, sizes: tuple[tuple[int, int], tuple[int, int]],
                                align: bool, half: bool) -> None:
    model = resize_model(builtin, dtype, *sizes, align=align, half=half)
    graph = load_tflite(model, "m")
    inputs = random_inputs(graph, 0)
    got, want = interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"]
    np.testing.assert_array_equal(got.view(np.uint32) if got.dtype == np.float32 else got,
                                  want.view(np.uint32) if want.dtype == np.float32 else want)


@pytest.mark.parametrize("builtin,dtype", [("RESIZE_NEAREST_NEIGHBOR", "int8"), ("RESIZE_BILINEAR", "float32"),
                                           ("RESIZE_BILINEAR", "int8")])
def test_c_matches_tflm(builtin: str, dtype: str, check_model: Callable[..., object]) -> None:
    check_model(resize_model(builtin, dtype, (5, 7), (9, 4), half=True), seeds=2, sanitize=True)
    check_model(resize_model(builtin, dtype, (4, 4), (7, 9), align=True), seeds=1, sanitize=True)
