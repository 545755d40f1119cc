"""The activation x activation GEMM of attention on the rv32 virtual platform: the shapes benchmarks/
attention_matmul.py measures (heads by a sequence by a head width, K given either way), bit-exact with TFLite
Micro and at most 3.0 instructions per MAC (counted between the layer's profiler marks), by the pairs kernel
with one-multiply rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ops.registry import Core
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.conftest import tflm_outputs
from tests.ops.test_batch_matmul import int8_model

GOAL = 3.0  # instructions per MAC, as the convolution models

# (A, B, adj_y): Q . K^T with K [head, seq] and [seq, head] (adj_y), attention . V, two wider heads
SHAPES = [([4, 32, 16], [4, 16, 32], False), ([4, 32, 16], [4, 32, 16], True), ([4, 32, 32], [4, 32, 16], False),
          ([2, 16, 32], [2, 32, 16], False)]


def per_mac_on_rv32(a_shape: list[int], b_shape: list[int], adj_y: bool, tmp_path: Path) -> float:
    """The one-multiply pairs kernel's rv32 instructions per MAC on the shape, its outputs checked bit-exact with
    TFLite Micro's."""
    model = int8_model(a_shape, b_shape, -3, 5, adj_y=adj_y, out_scale=0.2, out_zero_point=-1)
    graph = load_tflite(model, "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert compiled.layers[0].kernel == "mote_batch_matmul_pairs_single_s8"
    inputs = random_inputs(graph, 0)
    run = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig")).run(inputs)
    np.testing.assert_array_equal(run.outputs["y"], tflm_outputs(model, graph, inputs)["y"])
    (profile,) = run.layers
    return profile.instructions / compiled.macs


@pytest.mark.parametrize("a_shape,b_shape,adj_y", SHAPES, ids=str)
def test_attention_matmul_per_mac(a_shape: list[int], b_shape: list[int], adj_y: bool, tmp_path: Path) -> None:
    assert per_mac_on_rv32(a_shape, b_shape, adj_y, tmp_path) <= GOAL


# A decode step's single row (q . K^T with K either way, weights . V): bit-exact, and the instructions per MAC
# measured (4.33, 4.71, 4.44) kept: one load, multiply and add per MAC before the outputs, above the goal
DECODE = [([4, 1, 16], [4, 16, 64], False, 4.5), ([4, 1, 16], [4, 64, 16], True, 4.9),
          ([4, 1, 64], [4, 64, 16], False, 4.6)]


@pytest.mark.parametrize("a_shape,b_shape,adj_y,bound", DECODE, ids=str)
def test_decode_step_matmul(a_shape: list[int], b_shape: list[int], adj_y: bool, bound: float,
                            tmp_path: Path) -> None:
    assert per_mac_on_rv32(a_shape, b_shape, adj_y, tmp_path) <= bound


def test_both_pairs_kernels_in_one_firmware(tmp_path: Path) -> None:
    """One layer with one-multiply rows and one with TFLite's (their assembly loops side by side in
    mote_micro_s8.S), bit-exact with TFLite Micro."""
    mb = ModelBuilder()
    a = mb.tensor("a", [2, 8, 12], "int8", scale=0.05, zero_point=-3)
    b = mb.tensor("b", [2, 12, 8], "int8", scale=0.04, zero_point=7)
    y = mb.tensor("y", [2, 8, 8], "int8", scale=0.2, zero_point=-1)
    z = mb.tensor("z", [2, 8, 8], "int8", scale=0.2, zero_point=3)
    for out in (y, z):
        mb.op("BATCH_MATMUL", [a, b], [out], adj_x=False, adj_y=False)
    model = mb.build([a, b], [y, z])
    graph = load_tflite(model, "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert [layer.kernel for layer in compiled.layers] == ["mote_batch_matmul_pairs_single_s8",
                                                          "mote_batch_matmul_pairs_s8"]
    inputs = random_inputs(graph, 1)
    run = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig")).run(inputs)
    want = tflm_outputs(model, graph, inputs)
    for name in ("y", "z"):
        np.testing.assert_array_equal(run.outputs[name], want[name])
