"""The pointwise kernel with few input channels (mote.ops.conv_pointwise) and its one-multiply output stage
(mote.ops.output_single): the stage against TFLite's MultiplyByQuantizedMultiplier on every accumulator of a range
and its edges, the kernel against TFLite Micro on the host (its C twin, sanitized) and on the rv32 virtual platform
(the assembly), with pixel counts that are not whole blocks, 1-9 channels, clamps, and the layers it declines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from mote import pipeline
from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.ops import OPS
from mote.ops.output_single import single_output, single_stage
from mote.ops.registry import Core, choose_kernel
from mote.quant import multiply_by_quantized_multiplier
from mote.targets.host import build_host
from mote.targets.rv32 import Rv32, Rv32Config, micro
from tests.frontend import test_tflite_uint8_kernels as uint8
from tests.ops.kernel_util import chosen
from tests.ops.test_conv2d import Case, conv_chain_model, conv_model

POINTWISE = "mote_conv_pointwise_s8"
ROW_PAIRS = frozenset({"mote_conv_row_pairs_s8"})  # takes a single pixel's layer first (test_fully_connected_row_pairs)
CLAMPS = [(-128, 127), (-128, -1), (-20, 100), (0, 0), (-128, -128)]


def tflite_output(acc: np.ndarray, multiplier: int, shift: int, offset: int, lo: int, hi: int) -> np.ndarray:
    return np.clip(multiply_by_quantized_multiplier(acc, multiplier, shift) + offset, lo, hi)


@pytest.mark.parametrize("seed", range(12))
def test_single_stage_equals_two_roundings_on_every_accumulator(seed: int) -> None:
    rng = np.random.default_rng(seed)
    found = 0
    for _ in range(6):
        multiplier = int(rng.integers(2**30, 2**31))
        shift = -int(rng.integers(1, 16))
        offset = int(rng.integers(-128, 128))
        lo, hi = CLAMPS[int(rng.integers(len(CLAMPS)))] if rng.integers(2) else (offset, 127)
        center, width = int(rng.integers(-2**20, 2**20)), int(rng.integers(1, 2**19))
        x_min, x_max = center - width, center + width
        stage = single_stage(multiplier, shift, offset, lo, hi, x_min, x_max)
        if stage is None:
            continue
        found += 1
        acc = np.arange(x_min, x_max + 1, dtype=np.int64)  # every accumulator of the range
        want = tflite_output(acc, multiplier, shift, offset, lo, hi)
        assert np.array_equal(single_output(stage, acc, lo, hi), want)
        # The edges: the range's ends, the thresholds and their neighbours, all in int32 after the constant.
        edges = np.array([x_min, x_max, stage.low - stage.add, stage.high - stage.add], np.int64)
        edges = np.clip((edges[:, None] + np.array([-1, 0, 1])).ravel(), x_min, x_max)
        assert np.array_equal(single_output(stage, edges, lo, hi), tflite_output(edges, multiplier, shift, offset,
                                                                                 lo, hi))
        assert -2**31 <= x_min + stage.add and x_max + stage.add < 2**31
    assert found >= 4


def test_single_stage_at_the_int32_ends() -> None:
    """Accumulators up to the int32 limits: the constant must keep z inside int32, else no stage."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        multiplier, shift = int(rng.integers(2**30, 2**31)), -int(rng.integers(8, 20))
        stage = single_stage(multiplier, shift, -128, -128, 127, -2**31, 2**31 - 1)
        if stage is None:
            continue
        acc = np.concatenate([np.arange(-2**31, -2**31 + 4096), np.arange(2**31 - 4096, 2**31),
                              rng.integers(-2**31, 2**31, 100000)]).astype(np.int64)
        assert np.array_equal(single_output(stage, acc, -128, 127), tflite_output(acc, multiplier, shift, -128, -128,
                                                                                  127))


def test_single_stage_declines_a_left_shift() -> None:
    assert single_stage(2**30 + 12345, 2, 0, -128, 127, -1000, 1000) is None
    assert single_stage(2**30 + 12345, 0, 0, -128, 127, -1000, 1000) is None


def pointwise(hw: tuple[int, int], in_ch: int, out_ch: int, activation: str, batches: int = 1) -> Case:
    return Case(batches, hw, in_ch, out_ch, (1, 1), in_ch, (1, 1), (1, 1), "SAME", activation, True, True)


CASES = [  # pixel counts 15, 9, 6, 1, 35, 4, 18, 12; channels 1-9, 16 and 64
    pointwise((5, 3), 8, 16, "RELU"),
    pointwise((3, 3), 3, 9, "RELU6"),
    pointwise((2, 3), 5, 7, "RELU_N1_TO_1"),
    pointwise((1, 1), 9, 5, "RELU"),
    pointwise((5, 7), 16, 6, "RELU6"),
    pointwise((2, 2), 6, 1, "RELU"),
    pointwise((3, 3), 7, 2, "RELU", batches=2),
    pointwise((3, 5), 2, 3, "RELU6"),
    pointwise((4, 3), 1, 40, "RELU"),
    pointwise((3, 1), 4, 8, "RELU"),
    pointwise((4, 3), 64, 10, "RELU6"),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_pointwise_matches_tflm(index: int, check_model: Callable[..., object]) -> None:
    """The C twin (built for the host with the scalar core's kernels, sanitized) against TFLite Micro."""
    rng = np.random.default_rng(500 + index)
    case = CASES[index]
    graph = check_model(conv_model(case, rng), seeds=2, sanitize=True, core=Core.SCALAR, skip=ROW_PAIRS)
    # Clamps on both sides of the output zero point (RELU_N1_TO_1) put a step of TFLite's rounding (halves away
    # from zero) inside the range, which one product does not follow: such a layer may keep the blocked kernel.
    expected = {POINTWISE} if case.activation in ("RELU", "RELU6") else {POINTWISE, "mote_conv_blocked_s8"}
    assert chosen(graph.nodes[0], Core.SCALAR, ROW_PAIRS) in expected  # type: ignore[attr-defined]


def test_pointwise_with_shared_roundings(check_model: Callable[..., object]) -> None:
    rng = np.random.default_rng(77)
    graph = check_model(conv_model(pointwise((3, 5), 8, 12, "RELU"), rng, weight_min=-20, weight_max=20), seeds=2,
                        sanitize=True, core=Core.SCALAR)
    assert chosen(graph.nodes[0], Core.SCALAR) == POINTWISE  # type: ignore[attr-defined]


def test_pointwise_declines_output_multipliers_above_one(check_model: Callable[..., object]) -> None:
    """A multiplier above 1 (a left shift) has no one-multiply stage: the blocked kernel takes the layer."""
    rng = np.random.default_rng(9)
    graph = check_model(conv_model(pointwise((3, 3), 6, 5, "RELU"), rng, gain=3.0), seeds=2, sanitize=True,
                        core=Core.SCALAR)
    node = graph.nodes[0]  # type: ignore[attr-defined]
    op = OPS[node.op]
    choice = choose_kernel(op, node, op.prepare(node), Core.SCALAR)
    assert choice.kernel.func == "mote_conv_blocked_s8"
    assert (POINTWISE, "a channel's output needs TFLite's two roundings") in choice.declined


def test_pointwise_declines_many_input_channels() -> None:
    rng = np.random.default_rng(3)
    node = load_tflite(conv_model(pointwise((2, 2), 65, 4, "RELU"), rng), "m").nodes[0]
    assert chosen(node, Core.SCALAR) != POINTWISE


def test_pointwise_on_rv32(tmp_path: Path) -> None:
    """The assembly inner loop with its one-multiply outputs: a chain of pointwise layers (growing outputs
    written backwards over their input, chunks of blocks, short blocks, sets of fewer than four channels),
    bit-exact."""
    chain = [pointwise((5, 7), 3, 9, "RELU"), pointwise((5, 7), 9, 4, "RELU6"), pointwise((5, 7), 4, 7, "RELU"),
             pointwise((5, 7), 7, 16, "RELU6"), pointwise((5, 7), 16, 5, "RELU")]  # 35 pixels: two chunks, a tail
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain_model(chain, np.random.default_rng(11)))
    for seed in range(2):
        report = pipeline.run(model, target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path / "fw", seed=seed)
        assert report.to_json()["bit_exact"]
        assert {layer["kernel"] for layer in report.to_json()["layers"]} == {POINTWISE}


def test_pointwise_and_blocked_share_one_inner_loop_on_rv32(tmp_path: Path) -> None:
    """A project with both the pointwise and the blocked kernel: one assembly body serves both inner loops
    (mote.targets.rv32.micro.pairs_4x4 with both), each through its own output stage, bit-exact."""
    chain = [pointwise((5, 7), 3, 66, "RELU"), pointwise((5, 7), 66, 7, "RELU6"), pointwise((5, 7), 7, 9, "RELU")]
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain_model(chain, np.random.default_rng(12)))
    for seed in range(2):
        report = pipeline.run(model, target=Rv32(Rv32Config(cc="zig")), work_dir=tmp_path / "fw", seed=seed)
        assert report.to_json()["bit_exact"]
        assert {layer["kernel"] for layer in report.to_json()["layers"]} == {POINTWISE, "mote_conv_blocked_s8"}
    assembly = next((tmp_path / "fw").rglob(micro.FILE)).read_text()
    assert assembly.count(".size mote_dot_pairs") == 1 and "mote_dot_pairs_single_4x4_s8:" in assembly


UINT8_LAYERS = [uint8.Layer(False, 5, 3, 8, 12, (1, 1), 1, "SAME", 97),  # 15 pixels
                uint8.Layer(False, 3, 3, 5, 7, (1, 1), 1, "SAME", 30, x_zero_point=0),  # odd window, 9 pixels
                uint8.Layer(False, 2, 3, 9, 6, (1, 1), 1, "SAME", 200, spread=30),  # groups sharing roundings
                uint8.Layer(False, 4, 4, 16, 3, (1, 1), 1, "SAME", 0, x_zero_point=255)]


@pytest.mark.parametrize("index", range(len(UINT8_LAYERS)))
def test_offset_pointwise_matches_uint8_oracle(index: int, tmp_path: Path) -> None:
    """The uint8 variant (split weights, each pixel's sum of taps times the channel's sum scale at the start) in
    C on the host, sanitized, against TensorFlow Lite's uint8 kernel, extremes of the input included."""
    layer = UINT8_LAYERS[index]
    rng = np.random.default_rng(index)
    w = uint8._weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    graph = load_tflite(uint8._model(layer, w, bias), "m")
    assert chosen(uint8._conv_node(graph), Core.SCALAR) == "mote_conv_offset_pointwise_s8"
    binary = build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "host", sanitize=True)
    for x in uint8._inputs(layer, rng):
        want = uint8._want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)
