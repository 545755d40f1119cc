"""TRANSPOSE_CONV against TFLite Micro: float32 (bit-exact: the scatter order), int8 and int16; SAME and VALID,
strides 1 to 3, with and without bias, activations; the generated C under the sanitizers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.reference import interpret
from tests.conftest import tflm_outputs


def transpose_conv_model(dtype: str, in_hw: tuple[int, int], filt: tuple[int, int], stride: int, padding: str,
                         bias: bool = True, activation: str = "NONE", seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    ic, oc = 3, 4
    if padding == "SAME":
        out_hw = (in_hw[0] * stride, in_hw[1] * stride)
    else:
        out_hw = ((in_hw[0] - 1) * stride + filt[0], (in_hw[1] - 1) * stride + filt[1])
    mb = ModelBuilder()
    shape = mb.tensor("shape", [4], "int32", data=np.array([1, *out_hw, oc]))
    if dtype == "float32":
        w = mb.tensor("w", [oc, *filt, ic], "float32", data=rng.normal(size=(oc, *filt, ic)).astype(np.float32))
        x = mb.tensor("x", [1, *in_hw, ic], "float32")
        b = mb.tensor("b", [oc], "float32", data=rng.normal(size=oc).astype(np.float32)) if bias else -1
        y = mb.tensor("y", [1, *out_hw, oc], "float32")
    else:
        zp = 0 if dtype == "int16" else 5
        scales = [float(s) for s in rng.uniform(0.005, 0.02, oc)]
        w = mb.tensor("w", [oc, *filt, ic], "int8", scale=scales, zero_point=[0] * oc, axis=0,
                      data=rng.integers(-127, 128, (oc, *filt, ic)))
        s_in = 0.02 if dtype == "int8" else 2e-4
        x = mb.tensor("x", [1, *in_hw, ic], dtype, scale=s_in, zero_point=zp)
        btype = "int32" if dtype == "int8" else "int64"
        b = mb.tensor("b", [oc], btype, scale=[s_in * s for s in scales], zero_point=[0] * oc, axis=0,
                      data=rng.integers(-3000, 3000, oc)) if bias else -1
        y = mb.tensor("y", [1, *out_hw, oc], dtype, scale=0.05 if dtype == "int8" else 5e-4, zero_point=-zp)
    mb.op("TRANSPOSE_CONV", [shape, w, x, b], [y], padding=padding, stride_h=stride, stride_w=stride,
          fused_activation_function=activation)
    return mb.build([x], [y])


CASES = [((3, 4), (3, 3), 2, "SAME", True, "NONE"), ((4, 3), (2, 3), 1, "SAME", False, "RELU"),
         ((3, 3), (3, 2), 2, "VALID", True, "NONE"), ((2, 5), (4, 4), 3, "VALID", True, "RELU6"),
         ((5, 5), (1, 1), 1, "SAME", True, "NONE")]


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_reference_matches_tflm(dtype: str, case: tuple) -> None:  # type: ignore[type-arg]
    model = transpose_conv_model(dtype, *case)
    graph = load_tflite(model, "m")
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        got, want = interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"]
        np.testing.assert_array_equal(got.view(np.uint32) if dtype == "float32" else got,
                                      want.view(np.uint32) if dtype == "float32" else want)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(transpose_conv_model(dtype, *CASES[0]), seeds=2, sanitize=True)
    check_model(transpose_conv_model(dtype, *CASES[2]), seeds=1, sanitize=True)
