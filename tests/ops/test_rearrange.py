"""DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, BROADCAST_TO, MIRROR_PAD and PADV2
against TFLite Micro, float32 and int8; the plans (affine or a table) and the generated C."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops import OPS
from mote.reference import interpret
from tests.conftest import tflm_outputs


def model(builtin: str, dtype: str, in_shape: list[int], out_shape: list[int],
          constants: list[tuple[list[int], object, str]], **options: object) -> bytes:
    q = {"scale": 0.05, "zero_point": 4} if dtype == "int8" else {}
    mb = ModelBuilder()
    x = mb.tensor("x", in_shape, dtype, **q)
    cs = [mb.tensor(f"c{i}", shape, dtype if cdtype == "same" else cdtype, data=np.asarray(values),
                    **(q if cdtype == "same" else {})) for i, (shape, values, cdtype) in enumerate(constants)]
    y = mb.tensor("y", out_shape, dtype, **q)
    mb.op(builtin, [x, *cs], [y], **options)
    return mb.build([x], [y])


I32 = "int32"
CASES = {
    "depth_to_space": ("DEPTH_TO_SPACE", [2, 2, 3, 12], [2, 4, 6, 3], [], {"block_size": 2}),
    "depth_to_space_3": ("DEPTH_TO_SPACE", [1, 2, 2, 18], [1, 6, 6, 2], [], {"block_size": 3}),
    "space_to_depth": ("SPACE_TO_DEPTH", [2, 4, 6, 3], [2, 2, 3, 12], [], {"block_size": 2}),
    "batch_to_space": ("BATCH_TO_SPACE_ND", [8, 2, 3, 2], [2, 3, 5, 2], [([2], [2, 2], I32),
                                                                        ([2, 2], [[0, 1], [1, 0]], I32)], {}),
    "batch_to_space_3d": ("BATCH_TO_SPACE_ND", [4, 3, 2], [1, 12, 2], [([1], [4], I32), ([1, 2], [[0, 0]], I32)],
                          {}),
    "space_to_batch": ("SPACE_TO_BATCH_ND", [2, 3, 5, 2], [8, 2, 3, 2], [([2], [2, 2], I32),
                                                                        ([2, 2], [[1, 0], [0, 1]], I32)], {}),
    "space_to_batch_unpadded": ("SPACE_TO_BATCH_ND", [1, 4, 6, 2], [4, 2, 3, 2], [([2], [2, 2], I32),
                                                                                 ([2, 2], [[0, 0], [0, 0]], I32)], {}),
    "broadcast_to": ("BROADCAST_TO", [3, 1], [2, 3, 4], [([3], [2, 3, 4], I32)], {}),
    "mirror_reflect": ("MIRROR_PAD", [3, 4], [6, 7], [([2, 2], [[2, 1], [3, 0]], I32)], {"mode": 0}),
    "mirror_symmetric": ("MIRROR_PAD", [2, 3, 4], [4, 3, 8], [([3, 2], [[1, 1], [0, 0], [4, 0]], I32)], {"mode": 1}),
    "padv2": ("PADV2", [2, 3], [3, 6], [([2, 2], [[1, 0], [0, 3]], I32), ([], 2, "same")], {}),
}


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_reference_matches_tflm(case: str, dtype: str) -> None:
    builtin, in_shape, out_shape, constants, options = CASES[case]
    m = model(builtin, dtype, in_shape, out_shape, constants, **options)
    graph = load_tflite(m, "m")
    inputs = random_inputs(graph, 0)
    got, want = interpret(graph, inputs)["y"], tflm_outputs(m, graph, inputs)["y"]
    if builtin == "SPACE_TO_BATCH_ND":  # TFLite Micro's pad value is a byte it never sets: compare the rest
        node = graph.nodes[0]
        padded = OPS[node.op].prepare(node).table
        keep = np.ones(got.size, bool) if padded is None else padded >= 0
        got, want = got.reshape(-1)[keep], want.reshape(-1)[keep]
    np.testing.assert_array_equal(got, want)


def test_space_to_batch_pads_with_the_zero_point() -> None:
    builtin, in_shape, out_shape, constants, options = CASES["space_to_batch"]
    graph = load_tflite(model(builtin, "int8", in_shape, out_shape, constants, **options), "m")
    out = interpret(graph, {"x": np.full(in_shape, 9, np.int8)})["y"]
    assert sorted(np.unique(out).tolist()) == [4, 9]  # the zero point 4 where padded


def test_plans() -> None:
    """Affine copies stay loops (a reshaped transpose included); padding, mirroring and cropping a
    batch-to-space take a table."""
    def kind(case: str) -> str:
        builtin, in_shape, out_shape, constants, options = CASES[case]
        node = load_tflite(model(builtin, "int8", in_shape, out_shape, constants, **options), "m").nodes[0]
        return "table" if OPS[node.op].prepare(node).table is not None else "affine"
    assert {case: kind(case) for case in CASES} == {
        **dict.fromkeys(CASES, "affine"), "mirror_reflect": "table", "mirror_symmetric": "table",
        "space_to_batch": "table", "padv2": "table",
        "batch_to_space": "table"}


@pytest.mark.parametrize("case", ["depth_to_space", "batch_to_space", "space_to_batch_unpadded", "mirror_symmetric",
                                  "padv2"])
def test_c_matches_tflm(case: str, check_model: Callable[..., object]) -> None:
    builtin, in_shape, out_shape, constants, options = CASES[case]
    check_model(model(builtin, "int8", in_shape, out_shape, constants, **options), seeds=1, sanitize=True)
