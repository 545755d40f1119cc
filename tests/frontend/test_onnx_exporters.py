"""Patterns real exporters write, quantized by onnxruntime's quantize_static, against onnxruntime: Cast after a
graph input, tf2onnx's NHWC Transposes around convolutions and pools (QOperator and QDQ), a Softmax left in
float after the last DequantizeLinear, and ops the quantizer leaves in float between DequantizeLinear and
QuantizeLinear."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mote.codegen.compile import compile_graph
from mote.errors import UnsupportedError
from mote.frontend.onnx import convert
from mote.ir import DType
from mote.reference import interpret
from mote.targets.rv32 import Rv32Config, build_rv32
from tests.frontend.onnx_exporters import ops, quantize, run_both
from tests.frontend.onnx_util import model


def w(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return (rng.normal(size=shape) * 0.5).astype(np.float32)


def chain(m: onnx.ModelProto, name: str) -> list[str]:
    """The op types from tensor `name` on, following each node's first reader."""
    out = []
    while True:
        reader = next((n for n in m.graph.node if name in n.input), None)
        if reader is None:
            return out
        out.append(reader.op_type)
        name = reader.output[0]


def lsb_diff(m: onnx.ModelProto, seeds: int = 3, host: Path | None = None) -> tuple[float, float]:
    """(largest difference in output steps, share of outputs that differ) of mote's reference against
    onnxruntime, for a model whose outputs are dequantized; with `host`, the generated C is built with the
    sanitizers and held bit-exact with the reference."""
    conv, results = run_both(m, seeds, host, sanitize=True)
    worst, differ, total = 0.0, 0, 0
    for ours, theirs in results:
        for t in conv.graph.outputs:
            scale = conv.graph.producer()[t].inputs[0].quant.scale[0]  # the dequantize's input
            d = np.round(np.abs(ours[t.name].astype(np.float64) - theirs[t.name]) / scale, 3)
            worst, differ, total = max(worst, float(d.max())), differ + int(np.count_nonzero(d)), total + d.size
    return worst, differ / total


# -- 1. Cast right after a graph input --------------------------------------------------------------------------------

def cast_input_model(rng: np.random.Generator, dtype: int, shape: tuple[int, ...] = (1, 3, 6, 6)) -> onnx.ModelProto:
    """input (uint8 image, integers) -> Cast(float) -> Conv -> Relu, as PyTorch's exporter writes `x.float()`."""
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT, name="to_float"),
             helper.make_node("Conv", ["xf", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"])]
    return model(nodes, {"x": shape}, ["y"], {"w": w(rng, 4, 3, 3, 3) * 0.01, "b": w(rng, 4)}, input_type=dtype)


@pytest.mark.parametrize("dtype, mote_dtype", [(TensorProto.UINT8, DType.UINT8), (TensorProto.INT8, DType.INT8),
                                               (TensorProto.INT16, DType.INT16), (TensorProto.INT32, DType.INT32),
                                               (TensorProto.BOOL, DType.BOOL)])
@pytest.mark.parametrize("fmt", ["qdq", "qoperator"])
def test_cast_after_input_keeps_the_declared_dtype(dtype: int, mote_dtype: DType, fmt: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(dtype)
    q = quantize(cast_input_model(rng, dtype), rng, fmt)
    assert chain(q, "x")[:2] == ["Cast", "QuantizeLinear"]
    graph = convert(q, "t").graph
    assert graph.inputs[0].dtype is mote_dtype and graph.inputs[0].shape == (1, 6, 6, 3)  # its dtype, NHWC
    worst, differ = lsb_diff(q, host=tmp_path if dtype == TensorProto.UINT8 and fmt == "qdq" else None)
    assert worst <= 1 and differ <= 0.02, (worst, differ)


def test_uint8_image_normalized_in_float(tmp_path: Path) -> None:
    """uint8 -> Cast -> Div(255) -> Sub(mean) -> Div(std) -> Conv: the preprocessing stays float (the quantizer
    leaves Div and Sub alone) and runs as mote's float ops, the QuantizeLinear after it rounding as onnxruntime."""
    rng = np.random.default_rng(7)
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["xf", "k255"], ["x01"]),
             helper.make_node("Sub", ["x01", "mean"], ["xc"]),
             helper.make_node("Div", ["xc", "std"], ["xn"]),
             helper.make_node("Concat", ["xn", "xn"], ["y"], axis=1)]  # quantized: its input gets a QuantizeLinear
    inits = {"k255": np.array(255.0, np.float32), "mean": np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1),
             "std": np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)}
    q = quantize(model(nodes, {"x": (1, 3, 8, 8)}, ["y"], inits, input_type=TensorProto.UINT8), rng)
    assert chain(q, "x")[:5] == ["Cast", "Div", "Sub", "Div", "QuantizeLinear"]
    graph = convert(q, "t").graph
    assert [n.op for n in graph.nodes][:5] == ["dequantize", "div", "sub", "div", "quantize"]
    assert graph.inputs[0].dtype is DType.UINT8
    worst, differ = lsb_diff(q, host=tmp_path)
    assert worst == 0, (worst, differ)  # no transcendental: identical


def test_image_classifier_as_exported(tmp_path: Path) -> None:
    """uint8 image -> Cast -> Div(255) -> Conv -> Tanh -> GlobalAveragePool -> Gemm -> Softmax (left in float):
    the input is taken NHWC through the float preprocessing, so no data moves before the convolution; the
    generated C is bit-exact with the reference under the sanitizers and on the virtual MCU; the probabilities are
    onnxruntime's up to the convolution's one-step differences."""
    rng = np.random.default_rng(8)
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["xf", "k"], ["xn"]),
             helper.make_node("Conv", ["xn", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Tanh", ["c"], ["t"]), helper.make_node("GlobalAveragePool", ["t"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]), helper.make_node("Gemm", ["f", "w2"], ["logits"], transB=1),
             helper.make_node("Softmax", ["logits"], ["y"], name="softmax")]
    inits = {"k": np.array(255.0, np.float32), "w": w(rng, 4, 3, 3, 3), "b": w(rng, 4), "w2": w(rng, 5, 4) * 4}
    q = quantize(model(nodes, {"x": (1, 3, 8, 8)}, ["y"], inits, input_type=TensorProto.UINT8), rng,
                 exclude=["softmax"])
    conv, results = run_both(q, seeds=3, host=tmp_path, sanitize=True)
    kinds = [n.op for n in conv.graph.nodes]
    assert "layout_transform" not in kinds and kinds[-2:] == ["dequantize", "softmax"], kinds
    header = (tmp_path / "project" / "src" / "model.h").read_text()
    assert "int model_run(const uint8_t *input0, float *output0);" in header
    for ours, theirs in results:
        for name in ours:
            assert np.abs(ours[name] - theirs[name]).max() < 0.05
    firmware = build_rv32(compile_graph(conv.graph), tmp_path / "rv32", Rv32Config(cc="zig"))
    x = np.random.default_rng(0).integers(0, 256, (1, 8, 8, 3)).astype(np.uint8)  # NHWC, as mote takes it
    assert np.array_equal(firmware.run({"x": x}).outputs["y"], interpret(conv.graph, {"x": x})["y"])


@pytest.mark.parametrize("dtype", [TensorProto.DOUBLE, TensorProto.INT64])
def test_cast_from_a_dtype_mote_cannot_take_is_one_line(dtype: int) -> None:
    rng = np.random.default_rng(1)
    q = quantize(cast_input_model(rng, dtype), rng)
    with pytest.raises(UnsupportedError) as info:
        convert(q, "net")
    message = str(info.value)
    name = "float64" if dtype == TensorProto.DOUBLE else "int64"
    assert f"input 'x' is {name}" in message and "'to_float'" in message and "float32 input" in message
    assert "\n" not in message


# -- 2. tf2onnx's NHWC models: Transposes around convolutions and pools ------------------------------------------------

def nhwc_model(rng: np.random.Generator) -> onnx.ModelProto:
    """An NHWC network as tf2onnx writes it: every NCHW op between Transpose(0,3,1,2) and Transpose(0,2,3,1)."""
    to_nchw, to_nhwc = [0, 3, 1, 2], [0, 2, 3, 1]
    nodes = [helper.make_node("Transpose", ["x"], ["x_t"], perm=to_nchw),
             helper.make_node("Conv", ["x_t", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Transpose", ["r1"], ["r1_t"], perm=to_nhwc)]
    x = "r1_t"
    for op, attrs in (("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2]}),
                      ("AveragePool", {"kernel_shape": [2, 2], "strides": [1, 1]}),
                      ("GlobalAveragePool", {})):
        nodes += [helper.make_node("Transpose", [x], [f"{op}_in"], perm=to_nchw),
                  helper.make_node(op, [f"{op}_in"], [op], **attrs),
                  helper.make_node("Transpose", [op], [f"{op}_t"], perm=to_nhwc)]
        x = f"{op}_t"
    nodes += [helper.make_node("Reshape", [x, "shape"], ["flat"]),
              helper.make_node("Gemm", ["flat", "w2", "b2"], ["y"], transB=1)]
    inits = {"w1": w(rng, 6, 3, 3, 3), "b1": w(rng, 6), "w2": w(rng, 5, 6), "b2": w(rng, 5),
             "shape": np.array([1, -1], np.int64)}
    return model(nodes, {"x": (1, 12, 12, 3)}, ["y"], inits)


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
@pytest.mark.parametrize("fmt", ["qoperator", "qdq"])
def test_tf2onnx_transposes_fold_into_the_layout(fmt: str, uint8: bool, tmp_path: Path) -> None:
    """The Transposes only relabel the layout (mote keeps NHWC): no data moves at run time."""
    rng = np.random.default_rng(3)
    q = quantize(nhwc_model(rng), rng, fmt, uint8)
    if fmt == "qoperator":
        quantized = {"QLinearConv", "MaxPool", "QLinearAveragePool", "QLinearGlobalAveragePool", "Transpose"}
        assert quantized <= set(ops(q))
    graph = convert(q, "t").graph
    assert graph.inputs[0].shape == (1, 12, 12, 3)
    assert "layout_transform" not in [n.op for n in graph.nodes]
    worst, differ = lsb_diff(q, host=tmp_path if uint8 else None)
    assert worst <= 1 and differ <= 0.2, (worst, differ)


def test_nhwc_output_after_transpose() -> None:
    """A 4-D output in NHWC after the last Transpose(0,2,3,1) is mote's layout as it is."""
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("Transpose", ["x"], ["x_t"], perm=[0, 3, 1, 2]),
             helper.make_node("Conv", ["x_t", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Transpose", ["p"], ["y"], perm=[0, 2, 3, 1])]
    q = quantize(model(nodes, {"x": (1, 8, 8, 3)}, ["y"], {"w": w(rng, 4, 3, 3, 3)}), rng, "qoperator")
    conv = convert(q, "t")
    assert conv.graph.outputs[0].shape == (1, 4, 4, 4) and conv.outputs[0].perm == (0, 1, 2, 3)
    assert "layout_transform" not in [n.op for n in conv.graph.nodes]
    worst, _ = lsb_diff(q)
    assert worst <= 1
