"""The fast kernels of legacy uint8 layers whose weights have a zero point other than 128
(mote_conv_offset_blocked_s8, mote_depthwise_conv_offset_rows_s8; on scalar cores the band kernel first:
tests/frontend/test_tflite_uint8_band.py) and their exact fallbacks (the offset
kernels), against TensorFlow Lite's uint8 kernels (tests/frontend/legacy_uint8.py) or, for shapes that oracle
does not take, mote's reference (itself checked against the oracle), sanitized on the host and on rv32."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.ir import Graph, Node
from mote.ops import OPS, filter_offset_conv
from mote.ops.fully_connected_row_pairs import fits as row_pairs_fit
from mote.ops.output_stage import INT32_MAX, output_shortcuts
from mote.ops.pair_groups import fits
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.host import build_host
from tests.frontend.legacy_uint8 import conv_uint8
from tests.ops.kernel_util import chosen

XQ, WQ_SCALE, OUTQ = (0.0235, 131), 0.004, (0.047, 120)


@dataclass(frozen=True)
class Layer:
    depthwise: bool
    h: int
    w: int
    in_ch: int
    out_ch: int  # the depth multiplier times in_ch for a depthwise layer
    filter: tuple[int, int]
    stride: int
    padding: str
    w_zero_point: int
    dilation: int = 1
    x_zero_point: int = XQ[1]
    spread: int = 0  # weights within 128 +- spread but for the extremes (as trained ones cluster), or any
    out_scale: float = OUTQ[0]


def _weights(layer: Layer, rng: np.random.Generator) -> np.ndarray:
    fh, fw = layer.filter
    shape = [1, fh, fw, layer.out_ch] if layer.depthwise else [layer.out_ch, fh, fw, layer.in_ch]
    w = rng.integers(128 - layer.spread, 129 + layer.spread, shape) if layer.spread else rng.integers(0, 256, shape)
    w.reshape(-1)[:4] = [0, 255, 0, layer.w_zero_point]  # the extremes, as min/max quantization leaves them
    return w.astype(np.uint8)


def _model(layer: Layer, w: np.ndarray, bias: np.ndarray) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, layer.h, layer.w, layer.in_ch], "uint8", scale=XQ[0], zero_point=layer.x_zero_point)
    wt = mb.tensor("w", list(w.shape), "uint8", scale=WQ_SCALE, zero_point=layer.w_zero_point, data=w)
    b = mb.tensor("b", [layer.out_ch], "int32", scale=float(np.float32(XQ[0]) * np.float32(WQ_SCALE)), zero_point=0,
                  data=bias)
    fh, fw = layer.filter
    eff_h, eff_w = (fh - 1) * layer.dilation + 1, (fw - 1) * layer.dilation + 1
    if layer.padding == "SAME":
        oh, ow = -(-layer.h // layer.stride), -(-layer.w // layer.stride)
    else:
        oh, ow = (layer.h - eff_h) // layer.stride + 1, (layer.w - eff_w) // layer.stride + 1
    y = mb.tensor("y", [1, oh, ow, layer.out_ch], "uint8", scale=layer.out_scale, zero_point=OUTQ[1])
    extra = {"depth_multiplier": layer.out_ch // layer.in_ch} if layer.depthwise else {}
    mb.op("DEPTHWISE_CONV_2D" if layer.depthwise else "CONV_2D", [x, wt, b], [y], padding=layer.padding,
          stride_h=layer.stride, stride_w=layer.stride, dilation_h_factor=layer.dilation,
          dilation_w_factor=layer.dilation, fused_activation_function="RELU6", **extra)
    return mb.build([x], [y])


def _inputs(layer: Layer, rng: np.random.Generator) -> list[np.ndarray]:
    """Random images, then the extremes: all 0 (-128 after the shift, against weights 0, -128 after it) and 255."""
    shape = (1, layer.h, layer.w, layer.in_ch)
    return [rng.integers(0, 256, shape).astype(np.uint8) for _ in range(2)] + [
        np.zeros(shape, np.uint8), np.full(shape, 255, np.uint8)]


def _want(layer: Layer, graph: Graph, w: np.ndarray, bias: np.ndarray, x: np.ndarray) -> np.ndarray:
    if layer.dilation == 1 and layer.out_ch == (layer.in_ch if layer.depthwise else layer.out_ch):
        weights = w[0] if layer.depthwise else w
        return conv_uint8(x[0], (XQ[0], layer.x_zero_point), weights, (WQ_SCALE, layer.w_zero_point), bias,
                          (layer.out_scale, OUTQ[1]), layer.stride, layer.padding, "RELU6",
                          depthwise=layer.depthwise)[None]
    return interpret(graph, {"x": x})["y"]


def _conv_node(graph: Graph) -> Node:
    """The convolution (the graph's other nodes are the uint8 boundary's)."""
    return next(n for n in graph.nodes if n.op in ("conv2d", "depthwise_conv2d"))


def _check(layer: Layer, kernel: str, tmp_path: Path, seed: int = 0, scalar: str | None = None) -> None:
    """`kernel` chosen on every core, or `scalar` on a scalar one when given; the host build (a vector core's)."""
    rng = np.random.default_rng(seed)
    w = _weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    graph = load_tflite(_model(layer, w, bias), "m")
    node = _conv_node(graph)
    for core in (Core.VECTOR, Core.SCALAR):
        assert chosen(node, core) == (scalar or scalar_kernel(layer, kernel, node) if core is Core.SCALAR
                                      else kernel)
    binaries = [build_host(compile_graph(graph), tmp_path / "host", sanitize=True)]
    if chosen(node, Core.SCALAR) == "mote_conv_row_pairs_s8":  # a kernel of scalar cores only: its C on the host
        binaries.append(build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "scalar", sanitize=True))
    for x in _inputs(layer, rng):
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(interpret(graph, {"x": x})["y"], want)
        for binary in binaries:
            np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)


def scalar_kernel(layer: Layer, kernel: str, node: Node | None = None) -> str:
    """On a scalar core, a 1x1 layer of one pixel runs mote_conv_row_pairs_s8 where its weights let it (`node`
    given), any other pointwise layer of up to 64 input channels mote_conv_offset_pointwise_s8."""
    pointwise = not layer.depthwise and layer.filter == (1, 1) and layer.stride == 1
    if pointwise and layer.h * layer.w == 1 and node is not None and row_pairs_fit(
            node.inputs[1].data.reshape(layer.out_ch, -1)):
        return "mote_conv_row_pairs_s8"
    few = pointwise and layer.in_ch <= 64
    return "mote_conv_offset_pointwise_s8" if few and kernel == "mote_conv_offset_blocked_s8" else kernel


CONVS = [
    Layer(False, 9, 7, 3, 8, (3, 3), 2, "SAME", 151),  # a first layer: 27 taps (odd), padding on every side
    Layer(False, 6, 6, 8, 12, (1, 1), 1, "SAME", 0),  # pointwise, filter_offset 128
    Layer(False, 5, 7, 6, 5, (3, 3), 1, "SAME", 255, x_zero_point=0),  # offset -127, 35 pixels, 5 channels
    Layer(False, 8, 8, 4, 6, (3, 2), 3, "VALID", 1),
    Layer(False, 9, 9, 5, 4, (3, 3), 1, "SAME", 200, dilation=2),
    Layer(False, 4, 4, 64, 9, (3, 3), 1, "SAME", 64, x_zero_point=255),  # 576 taps
    Layer(False, 4, 4, 56, 5, (3, 3), 1, "VALID", 60),  # 504 taps: the most whose pair words sum in int32
    Layer(False, 1, 1, 96, 10, (1, 1), 1, "SAME", 77),  # a classifier's logits: one pixel
    Layer(False, 5, 6, 24, 38, (1, 1), 1, "SAME", 97, spread=30),  # more sets than a call takes, 2 left over
    Layer(False, 3, 5, 5, 7, (1, 1), 1, "SAME", 30),  # 1x1 with an odd window: padding taps, 15 pixels
    Layer(False, 6, 6, 16, 8, (3, 3), 1, "SAME", 140, spread=40),  # weights near 128
    # 3x3 windows of three channels: packed straight inside, copied around the zero point at every border
    Layer(False, 6, 5, 3, 5, (3, 3), 1, "SAME", 30),
    Layer(False, 7, 7, 3, 4, (3, 3), 1, "SAME", 200, dilation=2),  # dilated: the general border path
    Layer(False, 1, 3, 21, 9, (1, 1), 1, "SAME", 61),  # three pixels, odd depth: each by itself, no blocks
]


@pytest.mark.parametrize("layer", CONVS, ids=lambda c: f"{c.filter[0]}x{c.filter[1]}s{c.stride}zp{c.w_zero_point}")
def test_convolution_with_weight_zero_point_is_register_blocked(layer: Layer, tmp_path: Path) -> None:
    _check(layer, "mote_conv_offset_blocked_s8", tmp_path)


DEPTHWISE = [
    Layer(True, 7, 9, 6, 6, (3, 3), 1, "SAME", 201),
    Layer(True, 9, 6, 5, 5, (3, 3), 2, "SAME", 0, x_zero_point=0),  # taller than wide: the frame is transposed
    Layer(True, 8, 8, 3, 3, (3, 3), 3, "VALID", 255, x_zero_point=255),
    Layer(True, 3, 70, 2, 2, (3, 3), 1, "SAME", 37),  # rows of more than MOTE_DEPTHWISE_ROWS_RUN outputs
]


@pytest.mark.parametrize("layer", DEPTHWISE, ids=lambda c: f"{c.h}x{c.w}s{c.stride}zp{c.w_zero_point}")
def test_3x3_depthwise_with_weight_zero_point_runs_on_the_rows_kernel(layer: Layer, tmp_path: Path) -> None:
    """On scalar cores the band kernel takes strides 1 and 2 across (mote.ops.depthwise_band)."""
    band = layer.stride in (1, 2)
    _check(layer, "mote_depthwise_conv_offset_rows_s8", tmp_path,
           scalar="mote_depthwise_conv_band_s8" if band else None)


@pytest.mark.parametrize("layer", [
    Layer(True, 7, 7, 3, 3, (5, 5), 1, "SAME", 90),
    Layer(True, 6, 6, 2, 4, (3, 3), 1, "SAME", 180),  # depth multiplier 2
    Layer(True, 9, 9, 3, 3, (3, 3), 1, "SAME", 15, dilation=2),
], ids=["5x5", "multiplier", "dilated"])
def test_other_depthwise_layers_keep_the_offset_kernel(layer: Layer, tmp_path: Path) -> None:
    _check(layer, "mote_depthwise_conv_offset_s8", tmp_path)


def test_blocked_kernel_output_left_shift_on_rv32(tmp_path: Path) -> None:
    """An output scale below input scale * weights scale (a multiplier above 1): every channel's output leaves
    the assembly's inline path for TFLite's two roundings (mote_output_rest_s8, called from the inner loop's
    frame), against the uint8 oracle."""
    from mote.targets.rv32 import Rv32Config, build_rv32

    layer = Layer(False, 6, 5, 8, 8, (3, 3), 1, "SAME", 90, out_scale=3e-5)
    rng = np.random.default_rng(11)
    w = _weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    graph = load_tflite(_model(layer, w, bias), "m")
    p = OPS["conv2d"].prepare(_conv_node(graph))
    cuts = output_shortcuts(p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max)
    assert (cuts.fast_after == INT32_MAX).all() and (cuts.shift == 0).all()  # no shortcuts: the full path
    assert chosen(_conv_node(graph), Core.SCALAR) == "mote_conv_offset_blocked_s8"
    firmware = build_rv32(compile_graph(graph, core=Core.SCALAR), tmp_path, Rv32Config(cc="zig"))
    for x in _inputs(layer, rng):
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(firmware.run({"x": x}).outputs["y"].reshape(want.shape), want)


@pytest.mark.parametrize("layer", [Layer(False, 7, 6, 3, 16, (3, 3), 2, "SAME", 128),
                                   Layer(False, 5, 5, 16, 10, (1, 1), 1, "SAME", 128, spread=25)],
                         ids=["3x3", "1x1"])
def test_weights_zero_point_128_reaching_0_run_split_on_scalar_cores(layer: Layer, tmp_path: Path) -> None:
    """Weights zero point 128: int8 weights, but the weight 0 is -128, which the int8 blocked kernels' paired
    products do not take. On a scalar core the split-weights kernel runs it (on rv32 against the uint8 oracle);
    the vector cores keep their int8 kernels."""
    from mote.targets.rv32 import Rv32Config, build_rv32

    rng = np.random.default_rng(9)
    w = _weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    graph = load_tflite(_model(layer, w, bias), "m")
    assert chosen(_conv_node(graph), Core.SCALAR) == "mote_conv_blocked_wide_s8"
    assert chosen(_conv_node(graph), Core.VECTOR) != "mote_conv_blocked_wide_s8"
    firmware = build_rv32(compile_graph(graph, core=Core.SCALAR), tmp_path / "rv32", Rv32Config(cc="zig"))
    binary = build_host(compile_graph(graph, core=Core.SCALAR), tmp_path / "host", sanitize=True)
    for x in _inputs(layer, rng):
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)
        np.testing.assert_array_equal(firmware.run({"x": x}).outputs["y"].reshape(want.shape), want)


def test_convolution_whose_accumulator_may_overflow_keeps_the_offset_kernel(tmp_path: Path) -> None:
    """Weights close to their zero point and a bias near the int32 limit: TFLite's accumulator stays inside
    int32, the blocked kernel's bound (any int8 weights' products) does not."""
    layer = Layer(False, 5, 5, 4, 4, (3, 3), 1, "SAME", 100)
    rng = np.random.default_rng(5)
    w = rng.integers(95, 106, (4, 3, 3, 4)).astype(np.uint8)
    bias = np.array([2**31 - 2**18, -2**31 + 2**18, 7, -7], np.int32)
    graph = load_tflite(_model(layer, w, bias), "m")
    assert chosen(_conv_node(graph), Core.SCALAR) == "mote_conv_offset_s8"
    binary = build_host(compile_graph(graph), tmp_path / "host", sanitize=True)
    for x in _inputs(layer, rng):
        want = _want(layer, graph, w, bias, x)
        np.testing.assert_array_equal(binary.run({"x": x})[0]["y"].reshape(want.shape), want)


def test_fast_kernels_on_rv32(tmp_path: Path) -> None:
    """Both kernels in the rv32 firmware (scalar cores), against the uint8 oracle."""
    from mote.targets.rv32 import Rv32Config, build_rv32

    for i, (layer, kernel) in enumerate([(CONVS[0], "mote_conv_offset_blocked_s8"),
                                         (CONVS[2], "mote_conv_offset_blocked_s8"),
                                         (CONVS[6], "mote_conv_offset_blocked_s8"),
                                         (CONVS[7], "mote_conv_offset_blocked_s8"),
                                         (CONVS[8], "mote_conv_offset_blocked_s8"),
                                         (CONVS[9], "mote_conv_offset_pointwise_s8"),
                                         (CONVS[1], "mote_conv_offset_pointwise_s8"),
                                         (CONVS[10], "mote_conv_offset_blocked_s8"),
                                         (CONVS[11], "mote_conv_offset_blocked_s8"),
                                         (CONVS[13], "mote_conv_offset_blocked_s8"),
                                         (DEPTHWISE[1], "mote_depthwise_conv_band_s8"),
                                         (DEPTHWISE[2], "mote_depthwise_conv_offset_rows_s8")]):
        rng = np.random.default_rng(i)
        w = _weights(layer, rng)
        bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
        graph = load_tflite(_model(layer, w, bias), "m")
        compiled = compile_graph(graph, core=Core.SCALAR)
        assert scalar_kernel(layer, kernel, _conv_node(graph)) in {layer.kernel for layer in compiled.layers}
        firmware = build_rv32(compiled, tmp_path / str(i), Rv32Config(cc="zig"))
        for x in _inputs(layer, rng)[1:]:
            want = _want(layer, graph, w, bias, x)
            np.testing.assert_array_equal(firmware.run({"x": x}).outputs["y"].reshape(want.shape), want)


@pytest.mark.parametrize("layer", CONVS, ids=lambda c: f"{c.filter[0]}x{c.filter[1]}s{c.stride}zp{c.w_zero_point}")
def test_split_weights_keep_each_tap_exact(layer: Layer) -> None:
    """mote_conv_offset_blocked_s8's split of each weight w - w_zp into v + s (s per output channel): every v in
    [-127, 128], where the paired products of int8 inputs fit 16 bits, and bias + s * sum(x) + sum(x * v) equal
    to TFLite's bias + sum((x - x_zp) * (w - w_zp)) on windows of random and extreme inputs."""
    rng = np.random.default_rng(3)
    w = _weights(layer, rng)
    bias = rng.integers(-4000, 4000, layer.out_ch).astype(np.int32)
    p = OPS["conv2d"].prepare(_conv_node(load_tflite(_model(layer, w, bias), "m")))
    s = filter_offset_conv.sum_scales(p)
    true = p.weights.reshape(p.out_ch, -1).astype(np.int64) + p.filter_offset  # w - w_zp
    v = true - s[:, None]
    assert v.min() >= -127 and v.max() <= 128
    assert np.abs(true).max() > 127  # the weights do not fit int8 as they are
    windows = np.concatenate([rng.integers(-128, 128, (30, p.taps)), np.full((1, p.taps), -128),
                              np.full((1, p.taps), 127)])
    want = bias.astype(np.int64) + (windows + p.input_offset) @ true.T
    got = filter_offset_conv.offset_bias(p, s) + windows.sum(axis=1, keepdims=True) * s + windows @ v.T
    np.testing.assert_array_equal(got, want)


def test_split_weights_centre_each_channel_for_shared_roundings() -> None:
    """Weights clustered near their zero point, far from 128, but for one channel's extremes: the channels
    without them are centred, so more of their groups of four taps share a rounding than when every weight is
    offset the same way (the split w8 + 1 that any layer allows)."""
    layer = Layer(False, 6, 6, 16, 8, (3, 3), 1, "SAME", 50, spread=30)
    rng = np.random.default_rng(4)
    w = np.clip(rng.integers(20, 81, (8, 3, 3, 16)), 0, 255).astype(np.uint8)
    w.reshape(-1)[:2] = [0, 255]
    p = OPS["conv2d"].prepare(_conv_node(load_tflite(_model(layer, w, np.zeros(8, np.int32)), "m")))
    true = p.weights.reshape(p.out_ch, -1).astype(np.int64) + p.filter_offset
    chosen_v = true - filter_offset_conv.sum_scales(p)[:, None]
    uniform_v = p.weights.reshape(p.out_ch, -1).astype(np.int64) + 1

    def fitting(v: np.ndarray) -> int:
        padded = np.pad(v, ((0, 0), (0, -v.shape[1] % 4)))
        return int(fits(padded.reshape(len(v), -1, 4)).sum())

    groups = -(-p.taps // 4)
    assert fitting(chosen_v) > fitting(uniform_v)
    assert fitting(chosen_v[1:]) == (p.out_ch - 1) * groups  # every group of the channels without the extremes
