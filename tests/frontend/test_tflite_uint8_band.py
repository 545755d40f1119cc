"""Legacy uint8 3x3 depthwise layers on a scalar core: mote_depthwise_conv_band_s8 with the weights minus their
zero point as int16 (wide_weights) when they have one, with int8 weights when it is 128 (no filter offset), against
TensorFlow Lite's uint8 kernels (tests/frontend/legacy_uint8.py): edge shapes (widths 1 to 3, channel counts not a
multiple of four, stride 2 on odd and even sizes, SAME and VALID, transposed frames) and weights zero points
0, 97, 128 and 255, on the host (the C twin, sanitized) and on rv32 (the assembly)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.ir import Graph
from mote.ops import OPS
from mote.ops.registry import Core
from mote.targets.host import build_host
from tests.frontend.test_tflite_uint8_kernels import Layer, _conv_node, _inputs, _model, _want, _weights
from tests.ops.kernel_util import chosen

BAND = "mote_depthwise_conv_band_s8"

EDGE = [
    Layer(True, 6, 1, 5, 5, (3, 3), 1, "SAME", 97),  # width 1 (transposed: one row)
    Layer(True, 5, 2, 6, 6, (3, 3), 1, "SAME", 0, x_zero_point=0),  # width 2, filter offset 128
    Layer(True, 3, 3, 7, 7, (3, 3), 1, "SAME", 255, x_zero_point=255),  # a 3x3 frame, filter offset -127
    Layer(True, 1, 1, 3, 3, (3, 3), 1, "SAME", 97),  # one pixel, four borders
    Layer(True, 3, 3, 9, 9, (3, 3), 1, "VALID", 200),  # one window
    Layer(True, 7, 9, 5, 5, (3, 3), 2, "SAME", 97),  # stride 2, odd: both sides padded
    Layer(True, 8, 10, 3, 3, (3, 3), 2, "SAME", 255),  # stride 2, even: right padded
    Layer(True, 9, 11, 6, 6, (3, 3), 2, "VALID", 0),  # stride 2, VALID, odd
    Layer(True, 8, 10, 7, 7, (3, 3), 2, "VALID", 37),  # stride 2, VALID, a column left over
    Layer(True, 3, 2, 5, 5, (3, 3), 2, "SAME", 97),  # stride 2, width 2
    Layer(True, 11, 4, 3, 3, (3, 3), 1, "SAME", 201, spread=30),  # tall: the frame is transposed
    Layer(True, 7, 9, 5, 5, (3, 3), 2, "SAME", 128),  # no filter offset: int8 weights, 0 is -128
    Layer(True, 5, 6, 6, 6, (3, 3), 1, "SAME", 128, x_zero_point=0),
]


def _graph(layer: Layer, seed: int) -> tuple[np.random.Generator, np.ndarray, np.ndarray, Graph]:
    rng = np.random.default_rng(seed)
    w = _weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    return rng, w, bias, load_tflite(_model(layer, w, bias), "m")


def _id(layer: Layer) -> str:
    return f"{layer.h}x{layer.w}x{layer.in_ch}s{layer.stride}{layer.padding}zp{layer.w_zero_point}"


@pytest.mark.parametrize("layer", EDGE, ids=_id)
def test_uint8_depthwise_runs_on_the_band_kernel_on_the_host(layer: Layer, tmp_path: Path) -> None:
    rng, w, bias, graph = _graph(layer, 50 + EDGE.index(layer))
    node = _conv_node(graph)
    assert chosen(node, Core.SCALAR) == BAND
    assert (OPS[node.op].prepare(node).filter_offset != 0) == (layer.w_zero_point != 128)
    binary = build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "host", sanitize=True)
    for x in _inputs(layer, rng):
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)


@pytest.mark.parametrize("index", [1, 2, 6, 7, 10, 11], ids=lambda i: _id(EDGE[i]))
def test_uint8_depthwise_band_on_rv32(index: int, tmp_path: Path) -> None:
    """The assembly: int16 weights loaded out of line (zero points 0, 255, 201), int8 ones (128); frames of at
    most WIDE_FRAME_OUTPUTS outputs with int16 weights (the first four) take a routine of their own."""
    from mote.targets.rv32 import Rv32Config, build_rv32

    layer = EDGE[index]
    rng, w, bias, graph = _graph(layer, 50 + index)
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert BAND in {layer.kernel for layer in compiled.layers}
    firmware = build_rv32(compiled, tmp_path, Rv32Config(cc="zig"))
    for x in _inputs(layer, rng)[1:]:
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(firmware.run({"x": x}).outputs["y"].reshape(want.shape), want)


def test_uint8_depthwise_whose_accumulator_may_overflow_keeps_the_offset_kernel() -> None:
    """A bias near the int32 limit: the band kernel's bound with weights in [-255, 255] does not hold."""
    layer = Layer(True, 5, 5, 4, 4, (3, 3), 1, "SAME", 100)
    w = np.random.default_rng(5).integers(95, 106, (1, 3, 3, 4)).astype(np.uint8)
    bias = np.array([2**31 - 2**18, -2**31 + 2**18, 7, -7], np.int32)
    graph = load_tflite(_model(layer, w, bias), "m")
    assert chosen(_conv_node(graph), Core.SCALAR) == "mote_depthwise_conv_offset_s8"


def test_int8_and_wide_layers_in_one_firmware(tmp_path: Path) -> None:
    """Two depthwise layers on rv32, weights zero point 128 (int8 weights) then 97 (wide_weights): one assembly
    function, the kind of weights chosen per call; against the uint8 oracle applied twice."""
    from mote.frontend.tflite_writer import ModelBuilder
    from mote.targets.rv32 import Rv32Config, build_rv32
    from tests.frontend.legacy_uint8 import conv_uint8

    rng = np.random.default_rng(77)
    mb = ModelBuilder()
    xq, wq = (0.0235, 131), 0.004
    x = mb.tensor("x", [1, 7, 6, 5], "uint8", scale=xq[0], zero_point=xq[1])
    layers, y = [], x
    for i, (zp, stride) in enumerate([(128, 1), (97, 2)]):
        w = rng.integers(0, 256, (1, 3, 3, 5)).astype(np.uint8)
        w.reshape(-1)[:2] = [0, 255]
        bias = rng.integers(-4000, 4000, 5).astype(np.int32)
        wt = mb.tensor(f"w{i}", [1, 3, 3, 5], "uint8", scale=wq, zero_point=zp, data=w)
        b = mb.tensor(f"b{i}", [5], "int32", scale=float(np.float32(xq[0]) * np.float32(wq)), zero_point=0,
                      data=bias)
        shape = [1, -(-7 // stride), -(-6 // stride), 5]
        out = mb.tensor(f"y{i}", shape, "uint8", scale=xq[0], zero_point=xq[1])
        mb.op("DEPTHWISE_CONV_2D", [y, wt, b], [out], padding="SAME", stride_h=stride, stride_w=stride,
              depth_multiplier=1, fused_activation_function="NONE")
        layers.append((w, zp, bias, stride))
        y = out
    graph = load_tflite(mb.build([x], [y]), "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert [layer.kernel for layer in compiled.layers if layer.op == "depthwise_conv2d"] == [BAND, BAND]
    offsets = [OPS[n.op].prepare(n).filter_offset for n in graph.nodes if n.op == "depthwise_conv2d"]
    assert offsets[0] == 0 and offsets[1] != 0
    firmware = build_rv32(compiled, tmp_path, Rv32Config(cc="zig"))
    for seed in range(2):
        image = np.random.default_rng(seed).integers(0, 256, (1, 7, 6, 5)).astype(np.uint8)
        want = image[0]
        for w, zp, bias, stride in layers:
            want = conv_uint8(want, xq, w[0], (wq, zp), bias, xq, stride, "SAME", "NONE", depthwise=True)
        got = firmware.run({"x": image}).outputs[graph.outputs[0].name]
        np.testing.assert_array_equal(got.reshape(want.shape), want)


# MobileNetV1's (alpha 0.25, 96x96) last depthwise layers, whose frames of at most WIDE_FRAME_OUTPUTS outputs take
# a straight-line routine with int16 weights: 12x12x64 -> 6x6 reads 9,152 bytes from a channel's first (the
# routine moves its pointers), 6x6x128 -> 6x6 shares the starts of the border's rows and columns, then 6x6 -> 3x3
# and 3x3 -> 3x3; a transposed frame and a VALID one.
WIDE_FRAMES = [
    Layer(True, 12, 12, 64, 64, (3, 3), 2, "SAME", 97, spread=20),
    Layer(True, 6, 6, 128, 128, (3, 3), 1, "SAME", 201, spread=20),
    Layer(True, 6, 6, 128, 128, (3, 3), 2, "SAME", 40),
    Layer(True, 3, 3, 256, 256, (3, 3), 1, "SAME", 255, x_zero_point=0),
    Layer(True, 9, 4, 9, 9, (3, 3), 1, "SAME", 0),
    Layer(True, 8, 8, 6, 6, (3, 3), 1, "VALID", 150),
]


@pytest.mark.parametrize("layer", WIDE_FRAMES, ids=_id)
def test_uint8_depthwise_wide_frames_on_rv32(layer: Layer, tmp_path: Path) -> None:
    """A wide frame's routine (mote.targets.rv32.micro_depthwise_frame, int16 weights loaded per channel) against
    TensorFlow Lite's uint8 kernel; the band loops are left out of its work."""
    from mote.ops.depthwise_band import WIDE, band_shapes, frame_shape
    from mote.ops.depthwise_band import wide_params as widen
    from mote.targets.rv32 import Rv32Config, build_rv32, micro

    rng, w, bias, graph = _graph(layer, 90 + WIDE_FRAMES.index(layer))
    node = _conv_node(graph)
    p = OPS[node.op].prepare(node)
    wide = widen(p)
    assert wide is not None and frame_shape(wide, wide=True) is not None
    shapes = band_shapes(p)
    assert len(shapes) == 1 and shapes[0][0] == 0 and shapes[0][-1] == WIDE
    src = micro.source(["mote_depthwise_band_s8"], shapes)
    routine = src[src.index(".Ldw_frame0:"):src.index("j .Ldw_done", src.index(".Ldw_frame0:"))]
    assert "lh s8, 16(a2)" in routine and "addi a2, a2, 18" in routine and "(s10)" not in routine
    if layer.h == 12:
        assert "li a7, 2432\n  add a0, a0, a7\n  lb a7, -2048(a0)" in routine  # the input pointer moved on
    if layer.h == 6 and layer.stride == 1:
        assert "add s10, s9, ra" in routine  # a border row's start, shared
    compiled = compile_graph(graph, core=Core.SCALAR)
    firmware = build_rv32(compiled, tmp_path, Rv32Config(cc="zig"))
    for x in _inputs(layer, rng)[1:]:
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(firmware.run({"x": x}).outputs["y"].reshape(want.shape), want)


def test_int8_and_wide_frames_of_one_shape_in_one_firmware(tmp_path: Path) -> None:
    """Two 3x3 -> 3x3 layers, weights zero point 128 (int8 weights) then 97 (int16): the same frame, two
    routines, each call finding its own by the params' frame_id."""
    from mote.frontend.tflite_writer import ModelBuilder
    from mote.targets.rv32 import Rv32Config, build_rv32
    from tests.frontend.legacy_uint8 import conv_uint8

    rng = np.random.default_rng(78)
    mb = ModelBuilder()
    xq, wq = (0.0235, 131), 0.004
    x = mb.tensor("x", [1, 3, 3, 6], "uint8", scale=xq[0], zero_point=xq[1])
    layers, y = [], x
    for i, zp in enumerate((128, 97)):
        w = rng.integers(0, 256, (1, 3, 3, 6)).astype(np.uint8)
        w.reshape(-1)[:2] = [0, 255]
        bias = rng.integers(-4000, 4000, 6).astype(np.int32)
        wt = mb.tensor(f"w{i}", [1, 3, 3, 6], "uint8", scale=wq, zero_point=zp, data=w)
        b = mb.tensor(f"b{i}", [6], "int32", scale=float(np.float32(xq[0]) * np.float32(wq)), zero_point=0, data=bias)
        out = mb.tensor(f"y{i}", [1, 3, 3, 6], "uint8", scale=xq[0], zero_point=xq[1])
        mb.op("DEPTHWISE_CONV_2D", [y, wt, b], [out], padding="SAME", stride_h=1, stride_w=1, depth_multiplier=1,
              fused_activation_function="RELU6")
        layers.append((w, zp, bias))
        y = out
    graph = load_tflite(mb.build([x], [y]), "m")
    compiled = compile_graph(graph, core=Core.SCALAR)
    assert [layer.kernel for layer in compiled.layers if layer.op == "depthwise_conv2d"] == [BAND, BAND]
    firmware = build_rv32(compiled, tmp_path, Rv32Config(cc="zig"))
    source = (tmp_path / "rv32" / "mote_micro_s8.S").read_text()
    assert {line for line in source.splitlines() if line.startswith(".Ldw_frame") and line.endswith("_channel:")} \
        == {".Ldw_frame0_channel:", ".Ldw_frame1_channel:"}
    for seed in range(2):
        image = np.random.default_rng(seed).integers(0, 256, (1, 3, 3, 6)).astype(np.uint8)
        want = image[0]
        for w, zp, bias in layers:
            want = conv_uint8(want, xq, w[0], (wq, zp), bias, xq, 1, "SAME", "RELU6", depthwise=True)
        got = firmware.run({"x": image}).outputs[graph.outputs[0].name]
        np.testing.assert_array_equal(got.reshape(want.shape), want)
