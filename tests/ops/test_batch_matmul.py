"""BATCH_MATMUL against TFLite Micro: float32 (bit-exact, the products summed in order), int8 and int16;
2-D to 4-D operands, broadcast batches, adj_x and adj_y, a constant second operand; the generated C, int8 by the
register-blocked kernel (rows and columns past a set of four, odd depths, extreme values)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host
from tests.conftest import tflm_outputs
from tests.ops.kernel_util import chosen


def matmul_model(dtype: str, a_shape: list[int], b_shape: list[int], adj_x: bool = False, adj_y: bool = False,
                 constant_b: bool = False, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    qa = {"int8": {"scale": 0.03, "zero_point": 4}, "int16": {"scale": 2e-4, "zero_point": 0}}.get(dtype, {})
    qb = {"int8": {"scale": 0.02, "zero_point": -6}, "int16": {"scale": 3e-4, "zero_point": 0}}.get(dtype, {})
    qy = {"int8": {"scale": 0.3, "zero_point": 1}, "int16": {"scale": 0.02, "zero_point": 0}}.get(dtype, {})
    rows, depth = (a_shape[-1], a_shape[-2]) if adj_x else (a_shape[-2], a_shape[-1])
    cols = b_shape[-2] if adj_y else b_shape[-1]
    out = [*np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2])), rows, cols]
    data = None
    if constant_b:
        data = rng.normal(size=b_shape).astype(np.float32) if dtype == "float32" else \
            rng.integers(-100, 100, b_shape).astype(dtype)
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, dtype, **qa)
    b = mb.tensor("b", b_shape, dtype, data=data, **qb)
    y = mb.tensor("y", out, dtype, **qy)
    mb.op("BATCH_MATMUL", [a, b], [y], adj_x=adj_x, adj_y=adj_y)
    return mb.build([a] if constant_b else [a, b], [y])


SHAPES = [([3, 5], [5, 4], False, False), ([2, 3, 5], [2, 5, 4], False, False), ([2, 1, 3, 5], [3, 5, 4], False, False),
          ([2, 5, 3], [2, 4, 5], True, True), ([4, 6], [2, 3, 6], False, True), ([2, 2, 5, 3], [5, 2], True, False)]


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_reference_matches_tflm(dtype: str, shapes: tuple[list[int], list[int], bool, bool]) -> None:
    model = matmul_model(dtype, *shapes)
    graph = load_tflite(model, "m")
    for seed in range(2):
        inputs = random_inputs(graph, seed)
        got, want = interpret(graph, inputs)["y"], tflm_outputs(model, graph, inputs)["y"]
        np.testing.assert_array_equal(got.view(np.uint32) if dtype == "float32" else got,
                                      want.view(np.uint32) if dtype == "float32" else want)


@pytest.mark.parametrize("dtype", ["float32", "int8", "int16"])
def test_c_matches_tflm(dtype: str, check_model: Callable[..., object]) -> None:
    check_model(matmul_model(dtype, [2, 1, 3, 5], [3, 5, 4]), seeds=2, sanitize=True)
    check_model(matmul_model(dtype, [2, 5, 3], [2, 4, 5], adj_x=True, adj_y=True), seeds=1, sanitize=True)
    check_model(matmul_model(dtype, [4, 6], [6, 3], constant_b=True), seeds=1, sanitize=True)


def int8_model(a_shape: list[int], b_shape: list[int], za: int, zb: int, adj_x: bool = False,
               adj_y: bool = False, out_scale: float = 0.25, out_zero_point: int = 3) -> bytes:
    """Two int8 activations with the given zero points."""
    rows = a_shape[-1] if adj_x else a_shape[-2]
    cols = b_shape[-2] if adj_y else b_shape[-1]
    out = [*np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2])), rows, cols]
    mb = ModelBuilder()
    a = mb.tensor("a", a_shape, "int8", scale=0.05, zero_point=za)
    b = mb.tensor("b", b_shape, "int8", scale=0.04, zero_point=zb)
    y = mb.tensor("y", out, "int8", scale=out_scale, zero_point=out_zero_point)
    mb.op("BATCH_MATMUL", [a, b], [y], adj_x=adj_x, adj_y=adj_y)
    return mb.build([a, b], [y])


# (A, B, adj_x, adj_y): rows and columns past a set of four, odd depths, one row (a decode step), broadcast batches
BLOCKED = [([4, 4], [4, 6], False, False), ([2, 9, 7], [2, 7, 6], False, False),
           ([3, 5, 1], [3, 1, 11], False, False), ([1, 16], [16, 33], False, False),
           ([2, 1, 7, 5], [3, 5, 4], False, False), ([2, 3, 7], [2, 9, 7], False, True),
           ([3, 2, 5], [3, 5, 6], False, False), ([2, 7, 6], [2, 13, 7], True, True)]


@pytest.mark.parametrize("core", [Core.SCALAR, Core.VECTOR], ids=lambda c: c.value)
@pytest.mark.parametrize("shapes", BLOCKED, ids=str)
def test_blocked_int8_matches_tflm(shapes: tuple[list[int], list[int], bool, bool], core: Core,
                                   check_model: Callable[..., object]) -> None:
    graph = check_model(int8_model(shapes[0], shapes[1], -3, 7, *shapes[2:]), seeds=2, sanitize=True, core=core)
    assert chosen(graph.nodes[0], core) == "mote_batch_matmul_blocked_s8"  # type: ignore[attr-defined]


# (A, B, adj_x, adj_y): rows and columns in sets of four; depths odd, even, not a multiple of four; adj_x and
# adj_y; broadcast batches
PAIRS = [([4, 4], [4, 4], False, False), ([2, 8, 7], [2, 7, 12], False, False), ([2, 4, 16], [2, 8, 16], False, True),
         ([3, 6, 8], [3, 6, 4], True, False), ([2, 1, 4, 2], [3, 2, 4], False, False),
         ([2, 9, 4], [2, 8, 9], True, True), ([2, 8, 16], [2, 16, 12], False, False),
         ([2, 12, 12], [2, 8, 12], False, True)]


# The output's zero point: -1 gives the layers one-multiply rows, 3 does not (TFLite's two roundings).
@pytest.mark.parametrize("out_zero_point,kernel", [(-1, "mote_batch_matmul_pairs_single_s8"),
                                                   (3, "mote_batch_matmul_pairs_s8")])
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
def test_pairs_int8_matches_tflm(shapes: tuple[list[int], list[int], bool, bool], out_zero_point: int, kernel: str,
                                 check_model: Callable[..., object]) -> None:
    model = int8_model(shapes[0], shapes[1], -3, 7, *shapes[2:], out_scale=0.2,  # type: ignore[arg-type]
                       out_zero_point=out_zero_point)
    graph = check_model(model, seeds=2, sanitize=True)
    assert chosen(graph.nodes[0], Core.SCALAR) == kernel  # type: ignore[attr-defined]


# (A, B, adj_y): fewer than four rows (decode steps), B's columns adjacent or each column's depth adjacent, columns
# past a set of eight or four, odd depths
FEW_ROWS = [([4, 1, 16], [4, 16, 64], False), ([4, 1, 16], [4, 64, 16], True), ([2, 3, 7], [2, 7, 13], False),
            ([2, 2, 9], [2, 11, 9], True), ([1, 33], [33, 6], False)]


@pytest.mark.parametrize("shapes", FEW_ROWS, ids=str)
def test_pairs_single_few_rows_matches_tflm(shapes: tuple[list[int], list[int], bool],
                                            check_model: Callable[..., object]) -> None:
    model = int8_model(shapes[0], shapes[1], -3, 7, adj_y=shapes[2], out_scale=0.2, out_zero_point=-1)
    graph = check_model(model, seeds=2, sanitize=True)
    assert chosen(graph.nodes[0], Core.SCALAR) == "mote_batch_matmul_pairs_single_s8"  # type: ignore[attr-defined]


@pytest.mark.parametrize("a_shape,b_shape,out_zero_point", [([2, 6, 9], [2, 9, 5], 3), ([2, 8, 9], [2, 9, 4], 3),
                                                            ([2, 8, 9], [2, 9, 4], -1)], ids=str)
@pytest.mark.parametrize("za,zb", [(127, -128), (-128, 127), (-1, -1), (-128, -128)])
def test_int8_extreme_values(za: int, zb: int, a_shape: list[int], b_shape: list[int], out_zero_point: int,
                             tmp_path: Path) -> None:
    """Every operand at -128 or 127 (each pair of products at the edge of the pair words' range), extreme zero
    points: bit-exact with TFLite Micro, by the blocked kernel (rows not a set of four) and the pairs kernels
    (with one-multiply rows where the layer has them)."""
    model = int8_model(a_shape, b_shape, za, zb, out_zero_point=out_zero_point)
    graph = load_tflite(model, "m")
    kernel = chosen(graph.nodes[0], Core.SCALAR)  # type: ignore[attr-defined]
    assert kernel.startswith("mote_batch_matmul_pairs") == (a_shape[-2] % 4 == 0)  # type: ignore[attr-defined]
    binary = build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "project", sanitize=True)
    rng = np.random.default_rng(0)
    for pick in ([-128], [127], [-128, 127]):
        inputs = {"a": rng.choice(pick, a_shape).astype(np.int8), "b": rng.choice(pick, b_shape).astype(np.int8)}
        want = tflm_outputs(model, graph, inputs)["y"]
        np.testing.assert_array_equal(interpret(graph, inputs)["y"], want)
        np.testing.assert_array_equal(binary.run(inputs)[0]["y"], want)


@pytest.mark.parametrize("shapes", BLOCKED[:3] + BLOCKED[4:], ids=str)
def test_dsp_int8_matches_tflm(shapes: tuple[list[int], list[int], bool, bool],
                               check_model: Callable[..., object]) -> None:
    """The DSP kernel's portable C (mote_dsp.h without the extension): odd rows, columns and depths, transposed
    and broadcast operands; a single row stays with the blocked kernel."""
    graph = check_model(int8_model(shapes[0], shapes[1], -3, 7, *shapes[2:]), seeds=2, sanitize=True, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_batch_matmul_dsp_s8"  # type: ignore[attr-defined]


def test_dsp_declines_one_row() -> None:
    graph = load_tflite(int8_model([1, 16], [16, 33], -3, 7), "m")
    assert chosen(graph.nodes[0], Core.DSP) == "mote_batch_matmul_blocked_s8"


@pytest.mark.parametrize("za,zb", [(127, -128), (-128, 127)])
def test_dsp_int8_extreme_values(za: int, zb: int, tmp_path: Path) -> None:
    """Every operand at -128 or 127 with extreme zero points (each widened value at the edge of [-255, 255])."""
    model = int8_model([2, 6, 9], [2, 9, 5], za, zb)
    graph = load_tflite(model, "m")
    binary = build_host(compile_graph(graph, core=Core.DSP), tmp_path / "project", sanitize=True)
    rng = np.random.default_rng(0)
    for pick in ([-128], [127], [-128, 127]):
        inputs = {"a": rng.choice(pick, (2, 6, 9)).astype(np.int8), "b": rng.choice(pick, (2, 9, 5)).astype(np.int8)}
        np.testing.assert_array_equal(binary.run(inputs)[0]["y"], tflm_outputs(model, graph, inputs)["y"])


def test_dsp_declines_an_output_stage_that_could_overflow(check_model: Callable[..., object]) -> None:
    """An output scale 4096 times below the product of the input scales (a left shift of 12) with a depth of 64:
    the 32-bit output stage could overflow, so the blocked kernel takes the layer, still exact."""
    mb = ModelBuilder()
    a = mb.tensor("a", [4, 64], "int8", scale=0.05, zero_point=2)
    b = mb.tensor("b", [64, 4], "int8", scale=0.04, zero_point=-1)
    y = mb.tensor("y", [4, 4], "int8", scale=0.05 * 0.04 / 4096, zero_point=0)
    mb.op("BATCH_MATMUL", [a, b], [y], adj_x=False, adj_y=False)
    graph = check_model(mb.build([a, b], [y]), seeds=1, core=Core.DSP)
    assert chosen(graph.nodes[0], Core.DSP) == "mote_batch_matmul_blocked_s8"  # type: ignore[attr-defined]
