"""Every op the cluster splits (mote.codegen.parallel) on 1, 3 and 8 cores of the virtual platform: the outputs
equal the reference interpreter's whatever the core count (uneven parts included), and each split layer's
instructions are spread over the cores."""

from __future__ import annotations

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.frontend.tflite import load_tflite
from mote.frontend.tflite_writer import ModelBuilder
from mote.inputs import random_inputs
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops.registry import Core
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config, build_rv32


def _weights(mb: ModelBuilder, rng: np.random.Generator, name: str, shape: list[int], axis: int,
             in_scale: float) -> tuple[int, int]:
    oc = shape[axis]
    scales = rng.uniform(0.002, 0.02, oc)
    w = mb.tensor(name, shape, "int8", scale=list(scales), zero_point=0, axis=axis, data=rng.integers(-127, 128, shape))
    b = mb.tensor(f"{name}_b", [oc], "int32", scale=list(in_scale * scales), zero_point=0,
                  data=rng.integers(-2000, 2000, oc))
    return w, b


def _model() -> bytes:
    """conv 3x3 stride 2 SAME -> pointwise -> depthwise 3x3 -> max pool -> add (itself) -> mul (a gain per
    channel) -> avg pool (rows left) -> fully connected over 5 rows -> softmax over them."""
    rng = np.random.default_rng(3)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 23, 19, 3], "int8", scale=0.05, zero_point=-7)
    act = {"fused_activation_function": "RELU"}
    w, b = _weights(mb, rng, "c1", [12, 3, 3, 3], 0, 0.05)
    c1 = mb.tensor("c1", [1, 12, 10, 12], "int8", scale=0.04, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [c1], padding="SAME", stride_h=2, stride_w=2, **act)
    w, b = _weights(mb, rng, "pw", [20, 1, 1, 12], 0, 0.04)
    pw = mb.tensor("pw", [1, 12, 10, 20], "int8", scale=0.05, zero_point=-128)
    mb.op("CONV_2D", [c1, w, b], [pw], padding="VALID", stride_h=1, stride_w=1, **act)
    w, b = _weights(mb, rng, "dw", [1, 3, 3, 20], 3, 0.05)
    dw = mb.tensor("dw", [1, 12, 10, 20], "int8", scale=0.05, zero_point=-128)
    mb.op("DEPTHWISE_CONV_2D", [pw, w, b], [dw], padding="SAME", stride_h=1, stride_w=1, depth_multiplier=1, **act)
    mp = mb.tensor("mp", [1, 11, 9, 20], "int8", scale=0.05, zero_point=-128)
    mb.op("MAX_POOL_2D", [dw], [mp], padding="VALID", stride_h=1, stride_w=1, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    a2 = mb.tensor("a2", [1, 11, 9, 20], "int8", scale=0.05, zero_point=-128)
    mb.op("AVERAGE_POOL_2D", [dw], [a2], padding="VALID", stride_h=1, stride_w=1, filter_height=2, filter_width=2,
          fused_activation_function="NONE")
    ad = mb.tensor("ad", [1, 11, 9, 20], "int8", scale=0.1, zero_point=-128)
    mb.op("ADD", [mp, a2], [ad], fused_activation_function="NONE")  # two tensors (x + x would fold to a table)
    gain = mb.tensor("gain", [20], "int8", scale=0.02, zero_point=0, data=rng.integers(-100, 100, 20))
    mu = mb.tensor("mu", [1, 11, 9, 20], "int8", scale=0.1, zero_point=-128)
    mb.op("MUL", [ad, gain], [mu], fused_activation_function="NONE")  # broadcast over the channels
    ap = mb.tensor("ap", [1, 5, 1, 20], "int8", scale=0.1, zero_point=-128)
    mb.op("AVERAGE_POOL_2D", [mu], [ap], padding="VALID", stride_h=2, stride_w=9, filter_height=3, filter_width=9,
          fused_activation_function="NONE")
    rs = mb.tensor("rs", [5, 20], "int8", scale=0.1, zero_point=-128)
    shape = mb.tensor("shape", [2], "int32", data=np.array([5, 20]))
    mb.op("RESHAPE", [ap, shape], [rs])
    w, b = _weights(mb, rng, "fc", [16, 20], 0, 0.1)
    fc = mb.tensor("fc", [5, 16], "int8", scale=0.2, zero_point=0)
    mb.op("FULLY_CONNECTED", [rs, w, b], [fc], fused_activation_function="NONE")
    sm = mb.tensor("sm", [5, 16], "int8", scale=1 / 256, zero_point=-128)
    mb.op("SOFTMAX", [fc], [sm], beta=1.0)
    return mb.build([x], [sm])


@pytest.fixture(scope="module")
def graph():  # type: ignore[no-untyped-def]
    return load_tflite(_model(), "cluster_layers")


@pytest.mark.parametrize("cores", [1, 3, 8])
def test_split_layers_bit_exact(graph, tmp_path, cores: int) -> None:  # type: ignore[no-untyped-def]
    compiled = compile_graph(graph, core=Core.SCALAR).for_cores(cores)
    if cores > 1:
        split = {layer.op for layer in compiled.layers if layer.parts}
        assert split >= {"conv2d", "depthwise_conv2d", "max_pool2d", "add", "mul", "avg_pool2d", "fully_connected",
                         "softmax"}
    else:
        assert not any(layer.parts for layer in compiled.layers)
    inputs = random_inputs(graph, 1)
    result = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig", cores=cores)).run(inputs)
    for name, value in interpret(graph, inputs).items():
        assert np.array_equal(result.outputs[name], value)
    if cores > 1:
        assert len(result.cores) == cores
        for layer in result.layers:
            if compiled.layers[layer.index].parts:
                parts = len(compiled.layers[layer.index].parts)
                assert sum(n > 0 for n in layer.core_instructions) >= parts  # each part's core did work


def _transformer_model(batches: int) -> bytes:
    """A batch matrix product (split by batches, or by rows with one batch), then requantization and
    activations (split by ranges of elements)."""
    mb = ModelBuilder()
    lead = [batches] if batches > 1 else []
    a = mb.tensor("a", [*lead, 13, 7], "int8", scale=0.05, zero_point=-3)
    b = mb.tensor("b", [*lead, 7, 6], "int8", scale=0.04, zero_point=7)
    y = mb.tensor("y", [*lead, 13, 6], "int8", scale=0.25, zero_point=3)
    mb.op("BATCH_MATMUL", [a, b], [y], adj_x=False, adj_y=False)
    s = mb.tensor("s", [*lead, 13, 6], "int8", scale=1 / 256, zero_point=-128)
    mb.op("LOGISTIC", [y], [s])
    q = mb.tensor("q", [*lead, 13, 6], "int8", scale=0.01, zero_point=3)
    mb.op("QUANTIZE", [s], [q])
    t = mb.tensor("t", [*lead, 13, 6], "int8", scale=1 / 128, zero_point=0)
    mb.op("TANH", [q], [t])
    return mb.build([a, b], [t])


def _norm_graph() -> Graph:
    rng = np.random.default_rng(5)
    x = Tensor("x", (11, 24), DType.INT8, Quant((0.04,), (3,)))
    gamma = Tensor("gamma", (24,), DType.FLOAT32, None, rng.normal(1, 0.5, 24).astype(np.float32))
    beta = Tensor("beta", (24,), DType.FLOAT32, None, rng.normal(0, 0.5, 24).astype(np.float32))
    y = Tensor("y", (11, 24), DType.INT8, Quant((0.03,), (-2,)))
    return Graph("norm", [x], [y], [Node("layer_norm", "norm", [x, gamma, beta], [y], {"epsilon": 1e-5, "rms": False})])


@pytest.mark.parametrize("which", ["batches", "rows", "norm"])
def test_transformer_kernels_bit_exact(which: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    g = _norm_graph() if which == "norm" else load_tflite(_transformer_model(3 if which == "batches" else 1), "t")
    inputs = random_inputs(g, 2)
    want = interpret(g, inputs)
    for cores in (3, 8):
        compiled = compile_graph(g, core=Core.SCALAR).for_cores(cores)
        assert all(layer.parts for layer in compiled.layers)  # every layer split
        result = build_rv32(compiled, tmp_path / f"fw{cores}", Rv32Config(cc="zig", cores=cores)).run(inputs)
        for name, value in want.items():
            assert np.array_equal(result.outputs[name], value), (cores, name)


def _small_image_model() -> bytes:
    """A 3x3 image with many channels (a convolution, a depthwise convolution), then a global average pool and a
    1x1 convolution of its one pixel: on 8 cores each splits by output channels, which balance better than
    rows (three rows, three blocks of pixels; one pixel)."""
    rng = np.random.default_rng(9)
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 3, 3, 16], "int8", scale=0.05, zero_point=-7)
    w, b = _weights(mb, rng, "c", [40, 3, 3, 16], 0, 0.05)
    c = mb.tensor("c", [1, 3, 3, 40], "int8", scale=0.08, zero_point=-128)
    mb.op("CONV_2D", [x, w, b], [c], padding="SAME", stride_h=1, stride_w=1, fused_activation_function="RELU")
    w, b = _weights(mb, rng, "d", [1, 3, 3, 40], 3, 0.08)
    d = mb.tensor("d", [1, 3, 3, 40], "int8", scale=0.06, zero_point=-128)
    mb.op("DEPTHWISE_CONV_2D", [c, w, b], [d], padding="SAME", stride_h=1, stride_w=1, depth_multiplier=1,
          fused_activation_function="RELU")
    a = mb.tensor("a", [1, 1, 1, 40], "int8", scale=0.06, zero_point=-128)
    mb.op("AVERAGE_POOL_2D", [d], [a], padding="VALID", stride_h=3, stride_w=3, filter_height=3, filter_width=3,
          fused_activation_function="NONE")
    w, b = _weights(mb, rng, "p", [22, 1, 1, 40], 0, 0.06)
    y = mb.tensor("y", [1, 1, 1, 22], "int8", scale=0.1, zero_point=3)
    mb.op("CONV_2D", [a, w, b], [y], padding="VALID", stride_h=1, stride_w=1, fused_activation_function="NONE")
    return mb.build([x], [y])


def _channels(p: object) -> int:
    for name in ("out_ch", "in_ch", "channels"):  # convolution, depthwise (multiplier 1), pooling
        if hasattr(p, name):
            return int(getattr(p, name))
    raise AssertionError(p)


@pytest.mark.parametrize("cores", [3, 8])
def test_channel_split_bit_exact(cores: int, tmp_path) -> None:  # type: ignore[no-untyped-def]
    g = load_tflite(_small_image_model(), "small")
    compiled = compile_graph(g, core=Core.SCALAR).for_cores(cores)
    by_channels = [sum(_channels(p) for p in layer.parts) == g.nodes[layer.index].outputs[0].shape[-1]
                   for layer in compiled.layers]
    # 3 cores: the image by rows, as balanced and without the copies; the one pixel by channels
    assert by_channels == ([True] * 4 if cores == 8 else [False, False, True, True])
    inputs = random_inputs(g, 4)
    result = build_rv32(compiled, tmp_path / "fw", Rv32Config(cc="zig", cores=cores)).run(inputs)
    for name, value in interpret(g, inputs).items():
        assert np.array_equal(result.outputs[name], value)
