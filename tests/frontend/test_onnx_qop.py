"""QOperator ONNX models (QLinear* ops, ConvInteger / MatMulInteger) against onnxruntime.

The float models of test_onnx_qdq quantized by onnxruntime in QOperator format, plus hand-built
models for what its quantizer does not produce (uint8 weights, channels_last pooling, integer
graph inputs and outputs, ConvInteger / MatMulInteger with their float rescaling tail)."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.frontend.onnx_util import check_against_onnx, model, normal_feeds, quantize_static_on
from tests.frontend.test_onnx_qdq import MODELS

# AveragePool that excludes SAME padding and changes quantization averages in the input's quantization,
# then requantizes: two roundings (mote keeps TFLite Micro's average pool), so up to 2 LSB.
LOOSER = {"avgpool_same": (0.85, 2.0)}


def quantize_qoperator(float_model: onnx.ModelProto, rng: np.random.Generator, uint8: bool) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantFormat

    return quantize_static_on(float_model, normal_feeds(float_model, rng), uint8, quant_format=QuantFormat.QOperator,
                              per_channel=True)


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_qoperator_op_matches_onnxruntime(name: str, uint8: bool) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    q = quantize_qoperator(MODELS[name](rng), rng, uint8)
    assert any(n.op_type.startswith("Q") and n.op_type not in ("QuantizeLinear",) for n in q.graph.node)
    min_match, max_lsb = LOOSER.get(name, (0.99, None))
    check_against_onnx(q, seeds=2, min_match=min_match, max_lsb=max_lsb)


def s(name: str, value: float) -> onnx.TensorProto:
    return helper.make_tensor(name, TensorProto.FLOAT, [], [value])


def zp(name: str, value: int, uint8: bool) -> onnx.TensorProto:
    return helper.make_tensor(name, TensorProto.UINT8 if uint8 else TensorProto.INT8, [], [value])


def qlinear_model(nodes: list, inits: list, shape: tuple[int, ...], uint8: bool, ms: bool = True) -> onnx.ModelProto:
    """x (float) -> QuantizeLinear -> nodes (reading xq, writing yq) -> DequantizeLinear -> y."""
    q = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"])]
    dq = [helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    m = model(q + nodes + dq, {"x": shape}, ["y"], ms=ms)
    m.graph.initializer.extend([s("xs", 0.02), zp("xz", 128 if uint8 else 3, uint8), s("ys", 0.05),
                                zp("yz", 120 if uint8 else -5, uint8), *inits])
    return m


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
def test_qlinear_conv_uint8_weights_and_bias(uint8: bool, tmp_path: Path) -> None:
    """uint8 weights with zero point 128 (symmetric once shifted), per-tensor, with an int32 bias."""
    rng = np.random.default_rng(1)
    wdt = np.uint8 if uint8 else np.int8
    w = (rng.integers(-100, 101, (6, 3, 3, 3)) + (128 if uint8 else 0)).astype(wdt)
    b = rng.integers(-2000, 2000, 6).astype(np.int32)
    from onnx import numpy_helper

    inits = [numpy_helper.from_array(w, "w"), s("ws", 0.01), zp("wz", 128 if uint8 else 0, uint8),
             numpy_helper.from_array(b, "b")]
    node = helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["yq"],
                            pads=[1, 0, 1, 0], strides=[1, 2])
    check_against_onnx(qlinear_model([node], inits, (1, 3, 7, 9), uint8), host=tmp_path if uint8 else None)


def test_qlinear_pooling_channels_last() -> None:
    nodes = [helper.make_node("QLinearAveragePool", ["xq", "xs", "xz", "ys", "yz"], ["yq"], domain="com.microsoft",
                              kernel_shape=[2, 2], strides=[2, 2], channels_last=1)]
    check_against_onnx(qlinear_model(nodes, [], (1, 6, 8, 5), False))
    nodes = [helper.make_node("QLinearGlobalAveragePool", ["xq", "xs", "xz", "ys", "yz"], ["yq"],
                              domain="com.microsoft", channels_last=1)]
    check_against_onnx(qlinear_model(nodes, [], (1, 6, 8, 5), True))


def test_integer_inputs_and_outputs(tmp_path: Path) -> None:
    """A uint8 model input and output, no Q/DQ: the graph input takes its quantization from its reader."""
    rng = np.random.default_rng(2)
    from onnx import numpy_helper

    w = rng.integers(-127, 128, (4, 3, 1, 1)).astype(np.int8)
    nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["c"]),
             helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2, 2], strides=[2, 2])]
    m = model(nodes, {"x": (1, 3, 6, 6)}, ["y"], input_type=TensorProto.UINT8, output_type=TensorProto.UINT8)
    m.graph.initializer.extend([s("xs", 0.03), zp("xz", 128, True), numpy_helper.from_array(w, "w"), s("ws", 0.02),
                                zp("wz", 0, False), s("ys", 0.1), zp("yz", 100, True)])
    result = check_against_onnx(m, host=tmp_path)
    assert result.max_lsb_diff <= 1


@pytest.mark.parametrize("op", ["ConvInteger", "MatMulInteger"])
def test_integer_op_with_float_tail(op: str) -> None:
    """ConvInteger / MatMulInteger -> Cast -> Mul(scale) -> Add(bias) -> QuantizeLinear: one mote layer."""
    rng = np.random.default_rng(3)
    from onnx import numpy_helper

    if op == "ConvInteger":
        shape, w = (1, 3, 6, 6), rng.integers(-127, 128, (5, 3, 3, 3)).astype(np.int8)
        scale, bias = (0.02 * 0.01 * (1 + rng.random((1, 5, 1, 1)))).astype(np.float32), rng.normal(size=(1, 5, 1, 1))
        attrs = {"pads": [1, 1, 1, 1]}
    else:
        shape, w = (2, 12), rng.integers(-127, 128, (12, 5)).astype(np.int8)
        scale, bias = np.float32(0.02 * 0.01), rng.normal(size=5)
        attrs = {}
    nodes = [helper.make_node(op, ["xq", "w", "xz", "wz"], ["acc"], **attrs),
             helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["accf", "scale"], ["scaled"]),
             helper.make_node("Add", ["scaled", "bias"], ["biased"]),
             helper.make_node("Relu", ["biased"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"])]
    inits = [numpy_helper.from_array(w, "w"), zp("wz", 0, False), numpy_helper.from_array(np.asarray(scale), "scale"),
             numpy_helper.from_array(np.asarray(bias, np.float32), "bias")]
    check_against_onnx(qlinear_model(nodes, inits, shape, False, ms=False))
