"""The CPU's requantization of an accelerator's int32 result: every layout in and out, strides, the
zero-point border a padded reader needs, and the exact shortcuts (outputs the clamp decides, one
rounding instead of two), as generated C under ASan/UBSan against the reference on random and
extreme accumulators, with shifts from far right to left."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.reference import interpret
from mote.targets.host import build_host

H, W, C = 5, 7, 6
PERM = {"NHWC": (0, 1, 2, 3), "NCHW": (0, 3, 1, 2)}


def _conv(rng: np.random.Generator, activation: str, out_shape: tuple[int, int, int, int]) -> Node:
    """A 1x1 conv whose per-channel multipliers span right shifts of 0 to 30 and left shifts."""
    x = Tensor("x", (1, H, W, 3), DType.INT8, Quant((0.05,), (3,)))
    scales = tuple(float(s) for s in (2.0 ** -np.array([0, 5, 12, 20, 30, -3])) * rng.uniform(0.5, 1, C))
    w = Tensor("w", (C, 1, 1, 3), DType.INT8, Quant(scales, (0,) * C, 0), rng.integers(-127, 128, (C, 1, 1, 3),
                                                                                       dtype=np.int8))
    out = Tensor("y", out_shape, DType.INT8, Quant((0.05,), (int(rng.integers(-20, 21)),)))
    return Node("conv2d", "conv", [x, w, None], [out], {"stride": (1, 1), "padding": "VALID", "dilation": (1, 1),
                                                        "activation": activation})


def _graph(rng: np.random.Generator, layouts: tuple[str, str], stride: tuple[int, int], border: tuple,
           activation: str) -> Graph:
    (top, bottom), (left, right) = border
    oh, ow = (H - 1) // stride[0] + 1, (W - 1) // stride[1] + 1
    conv = _conv(rng, activation, (1, oh, ow, C))
    padded = (1, oh + top + bottom, ow + left + right, C)
    acc = Tensor("acc", tuple((1, H, W, C)[i] for i in PERM[layouts[0]]), DType.INT32)
    out = Tensor("out", tuple(padded[i] for i in PERM[layouts[1]]), DType.INT8, conv.outputs[0].quant)
    node = Node("requantize_s32", "requantize", [acc], [out],
                {"original": conv, "stride": stride, "layouts": layouts, "border": border})
    return Graph("requantize", [acc], [out], [node])


def _accumulators(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Small, large and extreme values, and values around zero."""
    pick = rng.integers(0, 4, shape)
    return np.select([pick == 0, pick == 1, pick == 2],
                     [rng.integers(-300, 300, shape), rng.integers(-2**20, 2**20, shape),
                      rng.choice(np.array([-2**31, -2**31 + 1, -1, 0, 1, 2**31 - 1]), shape)],
                     rng.integers(-2**31, 2**31, shape)).astype(np.int32)


@pytest.mark.parametrize("layouts, stride, border, activation", [
    (("NHWC", "NHWC"), (1, 1), ((0, 0), (0, 0)), "NONE"),
    (("NCHW", "NCHW"), (1, 1), ((0, 0), (0, 0)), "RELU"),
    (("NCHW", "NCHW"), (1, 1), ((1, 1), (1, 1)), "RELU6"),
    (("NCHW", "NCHW"), (2, 2), ((0, 1), (2, 0)), "RELU"),
    (("NCHW", "NHWC"), (2, 1), ((0, 0), (0, 0)), "NONE"),
    (("NHWC", "NCHW"), (1, 2), ((1, 0), (0, 1)), "RELU_N1_TO_1"),
    (("NHWC", "NHWC"), (1, 1), ((2, 1), (1, 2)), "RELU"),
])
def test_matches_the_reference(tmp_path: Path, layouts: tuple[str, str], stride: tuple[int, int], border: tuple,
                               activation: str) -> None:
    rng = np.random.default_rng(len(tmp_path.name))
    graph = _graph(rng, layouts, stride, border, activation)
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    for seed in range(4):
        inputs = {"acc": _accumulators(np.random.default_rng(seed), graph.inputs[0].shape)}
        expected = interpret(graph, inputs)["out"]
        assert np.array_equal(binary.run(inputs)[0]["out"], expected), f"seed {seed}"
