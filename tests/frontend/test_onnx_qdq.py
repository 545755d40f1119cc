"""QDQ ONNX models (float models quantized by onnxruntime's quantize_static) against onnxruntime.

Each op alone, int8 and uint8 activations, per-channel and per-tensor weights: mote's reference
interpreter within ±1 LSB of onnxruntime on at least 99% of outputs; a few models also as generated C
on the host, bit-exact with the reference."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.frontend.onnx import convert
from tests.frontend.onnx_util import check_against_onnx, model, quantize_qdq

Builder = Callable[[np.random.Generator], onnx.ModelProto]


def w(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return (rng.normal(size=shape) * 0.5).astype(np.float32)


def conv_model(rng: np.random.Generator, group: int = 1, pads: list[int] | None = None, strides: int = 1,
               dilation: int = 1, auto_pad: str | None = None, cin: int = 4, cout: int = 6, k: int = 3,
               hw: tuple[int, int] = (9, 8), act: str | None = None) -> onnx.ModelProto:
    attrs: dict = {"group": group, "strides": [strides, strides], "dilations": [dilation, dilation]}
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = pads if pads is not None else [1, 1, 1, 1]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c" if act else "y"], **attrs)]
    inits = {"w": w(rng, cout, cin // group, k, k), "b": w(rng, cout)}
    if act == "relu":
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    elif act == "relu6":
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
        inits.update(lo=np.array(0.0, np.float32), hi=np.array(6.0, np.float32))
    return model(nodes, {"x": (1, cin, *hw)}, ["y"], inits)


def single(op: str, shape: tuple[int, ...], inits: dict | None = None, extra_inputs: list[str] | None = None,
           **attrs: object) -> onnx.ModelProto:
    nodes = [helper.make_node(op, ["x", *(extra_inputs or [])], ["y"], **attrs)]
    return model(nodes, {"x": shape}, ["y"], inits)


def after_conv(op: str, rng: np.random.Generator, inits: dict | None = None, extra: list[str] | None = None,
               **attrs: object) -> onnx.ModelProto:
    """conv -> op: the op sees a calibrated, quantized activation with a typical NCHW layout."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node(op, ["c", *(extra or [])], ["y"], **attrs)]
    return model(nodes, {"x": (1, 3, 8, 8)}, ["y"], {"w": w(rng, 5, 3, 3, 3), **(inits or {})})


MODELS: dict[str, Builder] = {
    "conv": lambda r: conv_model(r),
    "conv_stride2_asym_pads": lambda r: conv_model(r, strides=2, pads=[1, 1, 1, 1], hw=(8, 8)),
    "conv_valid_dilated": lambda r: conv_model(r, pads=[0, 0, 0, 0], dilation=2, hw=(11, 9)),
    "conv_same_upper": lambda r: conv_model(r, auto_pad="SAME_UPPER", strides=2, hw=(7, 10)),
    "conv_same_lower": lambda r: conv_model(r, auto_pad="SAME_LOWER", strides=2, hw=(7, 10)),
    "conv_1x1_relu": lambda r: conv_model(r, k=1, pads=[0, 0, 0, 0], act="relu"),
    "conv_relu6": lambda r: conv_model(r, act="relu6"),
    "depthwise": lambda r: conv_model(r, group=4, cin=4, cout=8),
    "grouped": lambda r: conv_model(r, group=2, cin=4, cout=6),
    "conv1d": lambda r: model([helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[1, 1])], {"x": (1, 4, 12)},
                              ["y"], {"w": w(r, 5, 4, 3), "b": w(r, 5)}),
    "gemm": lambda r: model([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], {"x": (2, 16)}, ["y"],
                            {"w": w(r, 10, 16), "b": w(r, 10)}),
    "gemm_alpha_beta": lambda r: model([helper.make_node("Gemm", ["x", "w", "b"], ["y"], alpha=0.5, beta=2.0)],
                                       {"x": (1, 16)}, ["y"], {"w": w(r, 16, 10), "b": w(r, 10)}),
    "matmul": lambda r: model([helper.make_node("MatMul", ["x", "w"], ["y"])], {"x": (1, 3, 16)}, ["y"],
                              {"w": w(r, 16, 7)}),
    "add": lambda r: model([helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Add", ["c", "x"], ["y"])],
                           {"x": (1, 4, 5, 5)}, ["y"], {"w": w(r, 4, 4, 1, 1)}),
    "add_const": lambda r: after_conv("Add", r, {"k": w(r, 1, 5, 1, 1)}, ["k"]),
    "mul": lambda r: model([helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Mul", ["c", "x"], ["y"])],
                           {"x": (1, 4, 5, 5)}, ["y"], {"w": w(r, 4, 4, 1, 1)}),
    "mul_const": lambda r: after_conv("Mul", r, {"k": w(r, 5, 1, 1)}, ["k"]),
    "avgpool": lambda r: after_conv("AveragePool", r, kernel_shape=[2, 2], strides=[2, 2]),
    "avgpool_same": lambda r: after_conv("AveragePool", r, kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER"),
    "avgpool_include_pad": lambda r: after_conv("AveragePool", r, kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                                count_include_pad=1),
    "maxpool": lambda r: after_conv("MaxPool", r, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "maxpool_ceil": lambda r: after_conv("MaxPool", r, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "global_avgpool": lambda r: after_conv("GlobalAveragePool", r),
    "relu": lambda r: after_conv("Relu", r),
    "clip": lambda r: after_conv("Clip", r, {"lo": np.array(-1.0, np.float32), "hi": np.array(1.0, np.float32)},
                                 ["lo", "hi"]),
    "sigmoid": lambda r: after_conv("Sigmoid", r),
    "softmax": lambda r: model([helper.make_node("Gemm", ["x", "w"], ["g"], transB=1),
                                helper.make_node("Softmax", ["g"], ["y"])], {"x": (2, 8)}, ["y"], {"w": w(r, 10, 8)}),
    "softmax_channels": lambda r: after_conv("Softmax", r, axis=1),
    "concat": lambda r: model([helper.make_node("Conv", ["x", "w"], ["c"]),
                               helper.make_node("Concat", ["c", "x"], ["y"], axis=1)],
                              {"x": (1, 3, 5, 5)}, ["y"], {"w": w(r, 4, 3, 1, 1)}),
    "reshape": lambda r: after_conv("Reshape", r, {"s": np.array([1, 5, -1], np.int64)}, ["s"]),
    "flatten": lambda r: after_conv("Flatten", r),
    "transpose_reshape": lambda r: model(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Transpose", ["c"], ["t"], perm=[0, 2, 3, 1]),
         helper.make_node("Reshape", ["t", "s"], ["y"])],
        {"x": (1, 3, 4, 4)}, ["y"], {"w": w(r, 6, 3, 1, 1), "s": np.array([1, -1], np.int64)}),
    "pad": lambda r: after_conv("Pad", r, {"p": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)}, ["p"]),
    # layouts: where ONNX semantics need NCHW element order, and where they do not
    "transpose_then_conv": lambda r: model(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Transpose", ["c"], ["t"], perm=[0, 3, 1, 2]),
         helper.make_node("Conv", ["t", "w2"], ["y"])], {"x": (1, 3, 5, 6)}, ["y"],
        {"w": w(r, 4, 3, 1, 1), "w2": w(r, 2, 6, 1, 1)}),
    "concat_height": lambda r: after_conv("Concat", r, extra=["c"], axis=2),
    "softmax_width": lambda r: after_conv("Softmax", r, axis=-1),
    "reshape_chw_matmul": lambda r: model(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Reshape", ["c", "s"], ["r"]),
         helper.make_node("MatMul", ["r", "wm"], ["y"])], {"x": (1, 3, 5, 6)}, ["y"],
        {"w": w(r, 4, 3, 1, 1), "s": np.array([1, 4, 30], np.int64), "wm": w(r, 30, 7)}),
    "add_broadcast_width": lambda r: after_conv("Add", r, {"k": w(r, 8)}, ["k"]),
    "squeeze_after_gap": lambda r: model(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("GlobalAveragePool", ["c"], ["g"]),
         helper.make_node("Squeeze", ["g", "ax"], ["y"])], {"x": (1, 3, 5, 6)}, ["y"],
        {"w": w(r, 4, 3, 1, 1), "ax": np.array([2, 3], np.int64)}),
    "conv1d_maxpool": lambda r: model(
        [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("MaxPool", ["c"], ["y"], kernel_shape=[2],
                                                                         strides=[2])],
        {"x": (1, 3, 12)}, ["y"], {"w": w(r, 4, 3, 3)}),
}


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_qdq_op_matches_onnxruntime(name: str, uint8: bool) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    q = quantize_qdq(MODELS[name](rng), rng, uint8=uint8, per_channel=not name.startswith("conv_1x1"))
    check_against_onnx(q, seeds=2)


def cnn(rng: np.random.Generator) -> onnx.ModelProto:
    """A small CNN touching most ops, for the generated-C check. Each op alone is within ±1 LSB of
    onnxruntime (the tests above); through a whole network the differences compound a little."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], group=6, pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]),
        helper.make_node("Add", ["r2", "p1"], ["a2"]),
        helper.make_node("AveragePool", ["a2"], ["ap"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Sigmoid", ["ap"], ["sg"]),
        helper.make_node("Concat", ["sg", "ap"], ["cc"], axis=1),
        helper.make_node("GlobalAveragePool", ["cc"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    inits = {"w1": w(rng, 6, 3, 3, 3), "b1": w(rng, 6), "w2": w(rng, 6, 1, 3, 3), "b2": w(rng, 6),
             "lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32), "w3": w(rng, 5, 12), "b3": w(rng, 5)}
    return model(nodes, {"x": (1, 3, 12, 12)}, ["y"], inits)


def test_no_transposes_at_run_time() -> None:
    """NCHW in ONNX, NHWC in mote: a CNN whose flatten sees 1x1 spatial needs no data movement at all,
    and a 1-D conv net none either."""
    for build in (cnn, MODELS["conv1d_maxpool"], MODELS["transpose_reshape"]):
        rng = np.random.default_rng(0)
        ops = [n.op for n in convert(quantize_qdq(build(rng), rng), "t").graph.nodes]
        assert "layout_transform" not in ops, ops


@pytest.mark.parametrize("uint8", [False, True], ids=["int8", "uint8"])
def test_qdq_cnn_host_bit_exact(uint8: bool, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    q = quantize_qdq(cnn(rng), rng, uint8=uint8)
    check_against_onnx(q, seeds=2, host=tmp_path, min_match=0.9)


def test_softmax_legacy_opset_flattens_trailing_axes() -> None:
    """Before opset 13, Softmax(axis=1) on NCHW normalizes over C*H*W together."""
    rng = np.random.default_rng(11)
    f = model([helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Softmax", ["c"], ["y"], axis=1)],
              {"x": (1, 3, 2, 3)}, ["y"], {"w": w(rng, 4, 3, 1, 1)}, opset=11)
    check_against_onnx(quantize_qdq(f, rng, per_channel=False))  # per-channel DequantizeLinear needs opset 13
