"""ONNX sub-byte weights: QDQ models whose DequantizeLinear reads INT4/UINT4 weights (onnxruntime's quantizer,
opset 21 and its com.microsoft ops before that) or INT2/UINT2 ones (opset 25), against onnxruntime (the QDQ
criterion: ±1 LSB on at least 99% of outputs), the generated C bit-exact with the reference (sanitized), and
`mote quantize --weight-bits`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper, version_converter

from mote.errors import MoteError
from mote.frontend.onnx import convert, quantize_model
from mote.ops.registry import Core
from mote.reference import interpret
from tests.frontend.onnx_util import check_against_onnx, model, normal_feeds, quantize_static_on
from tests.frontend.test_onnx_qdq import conv_model
from tests.frontend.test_onnx_quantize import digit_like, digits_float_onnx
from tests.ops.kernel_util import chosen

PACKED = {"fully_connected": {"mote_fully_connected_packed_s8"},
          "conv2d": {"mote_conv_packed_s8", "mote_conv_packed_rows_s8", "mote_conv_packed_ring_s8"},
          "depthwise_conv2d": {"mote_depthwise_conv_packed_s8", "mote_depthwise_conv_packed_band_s8"}}


def _quantized(float_model: onnx.ModelProto, weight_type: str, opset: int | None, seed: int = 0) -> onnx.ModelProto:
    from onnxruntime.quantization import QuantFormat, QuantType

    m = version_converter.convert_version(float_model, opset) if opset else float_model
    if opset:
        m.ir_version = 10
    symmetric = weight_type == "QInt4"
    return quantize_static_on(m, normal_feeds(m, np.random.default_rng(seed)), quant_format=QuantFormat.QDQ,
                              per_channel=True, weight_type=getattr(QuantType, weight_type),
                              extra_options={"ActivationSymmetric": False, "WeightSymmetric": symmetric})


def gemm_model(rng: np.random.Generator, matmul: bool = False) -> onnx.ModelProto:
    w = (rng.normal(size=(24, 10) if matmul else (10, 24)) * 0.5).astype(np.float32)
    if matmul:
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
        return model(nodes, {"x": (1, 24)}, ["y"], {"w": w})
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)]
    return model(nodes, {"x": (2, 24)}, ["y"], {"w": w, "b": (rng.normal(size=10) * 0.3).astype(np.float32)})


def _bits(m: onnx.ModelProto) -> dict[str, int]:
    graph = convert(m, "test").graph
    found = {}
    for node in graph.nodes:
        if node.op in PACKED and node.inputs[1] is not None:
            found[node.op] = node.inputs[1].bits
            if node.inputs[1].bits < 8:
                assert chosen(node, Core.VECTOR) in PACKED[node.op]
    return found


MODELS = {"conv": lambda rng: conv_model(rng, act="relu"), "conv_strided": lambda rng: conv_model(rng, strides=2),
          "depthwise": lambda rng: conv_model(rng, group=4, cout=8), "gemm": gemm_model,
          "matmul": lambda rng: gemm_model(rng, matmul=True)}


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize(("weight_type", "opset"), [("QInt4", 21), ("QUInt4", 21), ("QInt4", None)])
def test_int4_qdq_matches_onnxruntime(name: str, weight_type: str, opset: int | None, tmp_path: Path) -> None:
    m = _quantized(MODELS[name](np.random.default_rng(len(name))), weight_type, opset)
    kinds = {i.data_type for i in m.graph.initializer}
    assert (TensorProto.INT4 if weight_type == "QInt4" else TensorProto.UINT4) in kinds
    if opset is None:  # before opset 21 onnxruntime writes its own com.microsoft Q/DQ
        assert any(n.domain == "com.microsoft" for n in m.graph.node)
    assert set(_bits(m).values()) == {4}
    check_against_onnx(m, seeds=2, host=tmp_path, sanitize=name == "conv")


def _int2_gemm(signed: bool, rng: np.random.Generator) -> onnx.ModelProto:
    """x -> Q -> DQ -> Gemm(DQ(INT2/UINT2 weights, per channel), DQ(int32 bias)) -> Q -> DQ, opset 25."""
    kind, low, high, zero = (TensorProto.INT2, -2, 1, 0) if signed else (TensorProto.UINT2, 0, 3, 2)
    out, depth = 6, 20
    w_scale = rng.uniform(0.05, 0.2, out).astype(np.float32)
    inits = [helper.make_tensor("w", kind, [out, depth], rng.integers(low, high + 1, out * depth).tolist()),
             helper.make_tensor("wz", kind, [out], [zero] * out),
             numpy_helper.from_array(w_scale, "ws"), numpy_helper.from_array(np.float32(0.04), "xs"),
             numpy_helper.from_array(np.int8(3), "xz"), numpy_helper.from_array(np.float32(0.08), "ys"),
             numpy_helper.from_array(np.int8(-4), "yz"),
             numpy_helper.from_array(rng.integers(-200, 200, out).astype(np.int32), "b"),
             numpy_helper.from_array((np.float32(0.04) * w_scale).astype(np.float32), "bs"),
             numpy_helper.from_array(np.zeros(out, np.int32), "bz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"], axis=0),
             helper.make_node("Gemm", ["xd", "wd", "bd"], ["g"], transB=1),
             helper.make_node("QuantizeLinear", ["g", "ys", "yz"], ["gq"]),
             helper.make_node("DequantizeLinear", ["gq", "ys", "yz"], ["y"])]
    graph = helper.make_graph(nodes, "int2", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, depth])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, out])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    m.ir_version = 11
    return m


@pytest.mark.parametrize("signed", [True, False])
def test_int2_qdq_matches_onnxruntime(signed: bool, tmp_path: Path) -> None:
    m = _int2_gemm(signed, np.random.default_rng(7))
    assert _bits(m) == {"fully_connected": 2}
    check_against_onnx(m, seeds=3, host=tmp_path, sanitize=True)


def test_per_channel_uint4_zero_points_are_refused_in_one_line() -> None:
    m = _int2_gemm(False, np.random.default_rng(1))
    zp = next(i for i in m.graph.initializer if i.name == "wz")
    zp.CopyFrom(helper.make_tensor("wz", TensorProto.UINT2, [6], [2, 1, 2, 2, 2, 2]))
    with pytest.raises(MoteError, match="per-channel weights need zero point 0") as info:
        convert(m, "test")
    assert "\n" not in str(info.value)


def logits_only(m: onnx.ModelProto) -> onnx.ModelProto:
    """The digits CNN up to its logits: a softmax after 2-bit weights turns one LSB of logits into several of
    probabilities, which would hide the layers under test."""
    assert m.graph.node[-1].op_type == "Softmax"
    logits = m.graph.node[-1].input[0]
    del m.graph.node[-1]
    m.graph.output[0].name = logits
    return m


@pytest.fixture(scope="module")
def digits(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("digits")
    onnx.save(logits_only(digits_float_onnx()), work / "f.onnx")
    np.savez(work / "calib.npz", x=digit_like(np.random.default_rng(0), 24))
    return work / "f.onnx", work / "calib.npz"


@pytest.mark.parametrize("bits", [4, 2])
def test_quantize_weight_bits(digits: tuple[Path, Path], bits: int, tmp_path: Path) -> None:
    src, calib = digits
    report = quantize_model(src, calib, tmp_path / "q.onnx", weight_bits=bits)
    wide = report["int8_weights"]
    assert report["weight_bits"] == bits and report["weight_bytes"] * 8 // bits == wide["weight_bytes"]
    # narrower weights move the outputs further from the float model's than 8-bit ones do
    assert wide["mean_abs_diff"] < report["mean_abs_diff"] <= report["max_abs_diff"]
    assert 0 <= report["top1_agreement"] <= wide["top1_agreement"] <= 1
    m = onnx.load(str(tmp_path / "q.onnx"))
    weight_type = TensorProto.INT4 if bits == 4 else TensorProto.INT2
    weights = [i for i in m.graph.initializer if i.data_type == weight_type and i.name.endswith("_quantized")]
    assert len(weights) == 3  # two convolutions and the fully connected layer
    for w in weights:
        values = numpy_helper.to_array(w).astype(np.int64)
        assert values.min() >= -(1 << (bits - 1)) and values.max() < 1 << (bits - 1)
    assert set(_bits(m).values()) == {bits}
    check_against_onnx(m, seeds=2, host=tmp_path)
    if bits == 4:
        return
    # onnxruntime runs int2 weights only as written (float convolutions between DequantizeLinear and
    # QuantizeLinear): its integer kernels too, on the same values stored as int8
    wide_model = widened(m)
    check_against_onnx(wide_model, seeds=2, host=tmp_path)
    narrow_graph, wide_graph = convert(m, "narrow").graph, convert(wide_model, "wide").graph
    for seed in range(3):
        x = digit_like(np.random.default_rng(seed), 1)
        assert np.array_equal(interpret(narrow_graph, {"x": x})["logits"], interpret(wide_graph, {"x": x})["logits"])


def widened(m: onnx.ModelProto) -> onnx.ModelProto:
    """The model with its INT2 constants stored as INT8 (the same values)."""
    out = onnx.ModelProto.FromString(m.SerializeToString())
    for init in out.graph.initializer:
        if init.data_type == TensorProto.INT2:
            values = numpy_helper.to_array(init).astype(np.int8)
            init.CopyFrom(numpy_helper.from_array(values, init.name))
    return out


def test_quantize_refuses_other_widths_in_one_line(digits: tuple[Path, Path], tmp_path: Path) -> None:
    src, calib = digits
    with pytest.raises(MoteError, match="--weight-bits 3: mote quantizes weights to 8, 4 or 2 bits") as info:
        quantize_model(src, calib, tmp_path / "q.onnx", weight_bits=3)
    assert "\n" not in str(info.value)


def test_uint4_convolution_weights_off_the_middle_are_refused_in_one_line() -> None:
    m = _quantized(conv_model(np.random.default_rng(2)), "QUInt4", 21)
    zp = next(i for i in m.graph.initializer if i.data_type == TensorProto.UINT4 and "zero_point" in i.name)
    zp.CopyFrom(helper.make_tensor(zp.name, TensorProto.UINT4, list(zp.dims), [0] * int(np.prod(zp.dims))))
    with pytest.raises(MoteError, match=r"or the middle of their range \(128 for uint8, 8 for uint4, 2 for uint2\), "
                                        r"got \(shifted to signed\) \[-8\]") as info:
        convert(m, "test")
    assert "\n" not in str(info.value)
