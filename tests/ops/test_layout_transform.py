"""The layout transform between NHWC and an accelerator's layout, as generated C under ASan/UBSan
against the reference: int8 and int32, both directions, and into a zero-point-padded output (the
transpose and the pad of a region's first input in one pass)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.inputs import random_inputs
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.reference import interpret
from mote.targets.host import build_host

NO_PADS = ((0, 0),) * 4


@pytest.mark.parametrize("shape, perm, dtype, pads", [
    ((1, 5, 7, 3), (0, 3, 1, 2), DType.INT8, NO_PADS),
    ((1, 3, 5, 7), (0, 2, 3, 1), DType.INT8, NO_PADS),
    ((1, 5, 7, 3), (0, 3, 1, 2), DType.INT32, NO_PADS),
    ((1, 6, 9, 3), (0, 3, 1, 2), DType.INT8, ((0, 0), (0, 0), (1, 1), (0, 2))),
    ((1, 4, 4, 5), (0, 3, 1, 2), DType.INT8, ((0, 0), (1, 0), (2, 1), (1, 1))),
])
def test_matches_the_reference(tmp_path: Path, shape: tuple[int, ...], perm: tuple[int, ...], dtype: DType,
                               pads: tuple) -> None:
    quant = Quant((0.1,), (-7,)) if dtype is DType.INT8 else None
    x = Tensor("x", shape, dtype, quant)
    out_shape = tuple(shape[a] + before + after for a, (before, after) in zip(perm, pads))
    y = Tensor("y", out_shape, dtype, quant)
    attrs = {"perm": perm, "pads": pads} if pads != NO_PADS else {"perm": perm}
    graph = Graph("transform", [x], [y], [Node("layout_transform", "transform", [x], [y], attrs)])
    binary = build_host(compile_graph(graph), tmp_path / "project", sanitize=True)
    inputs = random_inputs(graph, 0)
    expected = interpret(graph, inputs)["y"]
    assert np.array_equal(binary.run(inputs)[0]["y"], expected)
    if pads != NO_PADS:
        assert np.count_nonzero(expected == -7) >= expected.size - x.size  # the border holds the zero point
