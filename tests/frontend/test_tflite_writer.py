"""The .tflite writer produces models that TFLite Micro loads and runs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema
from tflite_micro.python.tflite_micro import runtime

from mote.frontend.tflite_writer import BUFFER_ALIGNMENT, ModelBuilder

ARENA_SIZE = 64 * 1024


def run(model: bytes, *inputs: np.ndarray) -> np.ndarray:
    interpreter = runtime.Interpreter.from_bytes(model, arena_size=ARENA_SIZE)
    for index, value in enumerate(inputs):
        interpreter.set_input(value, index)
    interpreter.invoke()
    return interpreter.get_output(0)


def parse(model: bytes) -> schema.ModelT:
    return schema.ModelT.InitFromPackedBuf(model, 0)


def add_model() -> bytes:
    mb = ModelBuilder()
    a = mb.tensor("a", [1, 2, 2, 3], "int8", scale=0.05, zero_point=0)
    b = mb.tensor("b", [1, 2, 2, 3], "int8", scale=0.05, zero_point=0)
    y = mb.tensor("y", [1, 2, 2, 3], "int8", scale=0.05, zero_point=0)
    mb.op("ADD", [a, b], [y], fused_activation_function="NONE")
    return mb.build(inputs=[a, b], outputs=[y])


def test_add_int8_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-50, 50, size=(1, 2, 2, 3), dtype=np.int8)
    b = rng.integers(-50, 50, size=(1, 2, 2, 3), dtype=np.int8)
    out = run(add_model(), a, b)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, a.astype(np.int16) + b)


def test_quantize_float_to_int8() -> None:
    scale, zero_point = 0.5, -3
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 6], "float32")
    q = mb.tensor("q", [1, 6], "int8", scale=scale, zero_point=zero_point)
    mb.op("QUANTIZE", [x], [q])
    model = mb.build(inputs=[x], outputs=[q])

    # Exactly representable inputs, so no rounding tie is involved; 100 saturates.
    values = np.array([[0.0, 0.5, 1.0, -2.0, 10.0, 100.0]], dtype=np.float32)
    expected = np.clip(np.round(values / scale) + zero_point, -128, 127)
    np.testing.assert_array_equal(run(model, values), expected.astype(np.int8))


def conv_reference(x: np.ndarray, w: np.ndarray, bias: np.ndarray, channel_scale: np.ndarray) -> np.ndarray:
    """VALID, stride 1 convolution; input scale 1, zero points 0, output scale 1."""
    _, height, width, _ = x.shape
    out_ch, kh, kw, _ = w.shape
    out = np.zeros((1, height - kh + 1, width - kw + 1, out_ch), dtype=np.int64)
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            patch = x[0, i : i + kh, j : j + kw, :].astype(np.int64)
            acc = np.tensordot(w.astype(np.int64), patch, axes=([1, 2, 3], [0, 1, 2]))
            out[0, i, j, :] = (acc + bias) * channel_scale
    return np.clip(out, -128, 127).astype(np.int8)


def test_conv2d_per_channel_runs_and_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 4, size=(1, 5, 5, 2), dtype=np.int8)
    w = rng.integers(-3, 4, size=(2, 3, 3, 2), dtype=np.int8)
    bias = np.array([5, -7], dtype=np.int32)
    # Power-of-two ratios keep requantization exact, so numpy can predict it.
    w_scale = np.array([1.0, 2.0])

    mb = ModelBuilder()
    xi = mb.tensor("x", x.shape, "int8", scale=1.0, zero_point=0)
    wi = mb.tensor("w", w.shape, "int8", scale=w_scale, zero_point=0, axis=0, data=w)
    bi = mb.tensor("b", [2], "int32", scale=1.0 * w_scale, zero_point=0, data=bias)
    yi = mb.tensor("y", [1, 3, 3, 2], "int8", scale=1.0, zero_point=0)
    mb.op("CONV_2D", [xi, wi, bi], [yi], padding="VALID", stride_w=1, stride_h=1)
    model = mb.build(inputs=[xi], outputs=[yi])

    np.testing.assert_array_equal(run(model, x), conv_reference(x, w, bias, w_scale))
    weights = parse(model).subgraphs[0].tensors[wi].quantization
    assert list(weights.scale) == [1.0, 2.0]
    assert list(weights.zeroPoint) == [0, 0]
    assert weights.quantizedDimension == 0


def test_file_structure() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4], "int8", scale=0.1, zero_point=0)
    c = mb.tensor("c", [1, 4], "int8", scale=0.1, zero_point=0, data=np.ones((1, 4)))
    h = mb.tensor("h", [1, 4], "int8", scale=0.1, zero_point=0)
    y = mb.tensor("y", [1, 4], "int8", scale=0.1, zero_point=0)
    mb.op("ADD", [x, c], [h])
    mb.op("ADD", [h, c], [y])
    raw = mb.build(inputs=[x], outputs=[y], description="unit test")
    model = parse(raw)

    assert raw[4:8] == b"TFL3"
    assert model.version == 3
    assert model.description == b"unit test"
    assert len(model.operatorCodes) == 1
    assert model.operatorCodes[0].builtinCode == schema.BuiltinOperator.ADD
    assert model.buffers[0].data is None
    assert len(model.buffers) == 2
    tensors = model.subgraphs[0].tensors
    assert [t.buffer for t in tensors] == [0, 1, 0, 0]
    assert tensors[c].name == b"c"
    assert raw == mb.build(inputs=[x], outputs=[y], description="unit test")
    np.testing.assert_array_equal(run(raw, np.array([[1, 2, 3, 4]], np.int8)), [[3, 4, 5, 6]])


def test_constant_data_is_aligned() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 3], "int8", scale=1.0, zero_point=0)
    odd = mb.tensor("odd", [3], "int8", data=np.array([1, 2, 3]))
    bias = mb.tensor("bias", [3], "int32", data=np.array([7, 8, 9]))
    mb.op("ADD", [x, odd], [bias])
    raw = mb.build(inputs=[x], outputs=[bias])

    payload = np.array([7, 8, 9], dtype="<i4").tobytes()
    assert raw.find(payload) % BUFFER_ALIGNMENT == 0


def test_large_opcode_uses_placeholder() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [4], "float32")
    y = mb.tensor("y", [4], "float32")
    mb.op("GELU", [x], [y])
    code = parse(mb.build(inputs=[x], outputs=[y])).operatorCodes[0]
    assert code.builtinCode == schema.BuiltinOperator.GELU > 127
    assert code.deprecatedBuiltinCode == 127


@pytest.mark.parametrize(
    ("builtin", "options", "options_class"),
    [
        ("CONV_2D", {"padding": "SAME", "dilation_w_factor": 2}, schema.Conv2DOptionsT),
        ("DEPTHWISE_CONV_2D", {"depth_multiplier": 2}, schema.DepthwiseConv2DOptionsT),
        ("FULLY_CONNECTED", {"keep_num_dims": True}, schema.FullyConnectedOptionsT),
        ("AVERAGE_POOL_2D", {"filter_width": 2}, schema.Pool2DOptionsT),
        ("MAX_POOL_2D", {"filter_height": 2}, schema.Pool2DOptionsT),
        ("ADD", {"fused_activation_function": "RELU6"}, schema.AddOptionsT),
        ("SUB", {}, schema.SubOptionsT),
        ("MUL", {}, schema.MulOptionsT),
        ("RESHAPE", {"new_shape": [1, -1]}, schema.ReshapeOptionsT),
        ("SQUEEZE", {"squeeze_dims": [1, 2]}, schema.SqueezeOptionsT),
        ("SOFTMAX", {"beta": 0.5}, schema.SoftmaxOptionsT),
        ("CONCATENATION", {"axis": 3}, schema.ConcatenationOptionsT),
        ("PAD", {}, schema.PadOptionsT),
        ("MEAN", {"keep_dims": True}, schema.ReducerOptionsT),
    ],
)
def test_options_use_the_schema_table(builtin: str, options: dict[str, object], options_class: type) -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1], "float32")
    mb.op(builtin, [x], [x], **options)
    op = parse(mb.build(inputs=[x], outputs=[x])).subgraphs[0].operators[0]
    assert isinstance(op.builtinOptions, options_class)
    assert op.builtinOptionsType == getattr(schema.BuiltinOptions, options_class.__name__[:-1])
    for key, value in options.items():
        stored = getattr(op.builtinOptions, "".join(_camel(key)))
        if isinstance(value, str):
            assert stored in (schema.Padding.SAME, schema.ActivationFunctionType.RELU6)
        elif isinstance(value, list):
            assert list(stored) == value
        else:
            assert stored == value


def _camel(snake: str) -> str:
    first, *rest = snake.split("_")
    return first + "".join(part.capitalize() for part in rest)


def test_option_defaults_are_usable() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1], "float32")
    mb.op("CONV_2D", [x], [x])
    mb.op("SOFTMAX", [x], [x])
    mb.op("RELU", [x], [x])
    conv, softmax, relu = parse(mb.build(inputs=[x], outputs=[x])).subgraphs[0].operators
    assert (conv.builtinOptions.strideW, conv.builtinOptions.strideH) == (1, 1)
    assert softmax.builtinOptions.beta == 1.0
    assert relu.builtinOptions is None


def test_rejects_mistakes() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [2], "int8", scale=1.0, zero_point=0)
    with pytest.raises(ValueError, match="unknown builtin"):
        mb.op("CONV2D", [x], [x])
    with pytest.raises(TypeError, match="no option"):
        mb.op("ADD", [x, x], [x], stride_w=2)
    with pytest.raises(TypeError, match="takes no options"):
        mb.op("RELU", [x], [x], alpha=0.1)
    with pytest.raises(IndexError):
        mb.op("ADD", [x, 5], [x])
    with pytest.raises(ValueError, match="does not fit"):
        mb.tensor("w", [2], "int8", data=np.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="elements"):
        mb.tensor("w", [3], "int8", data=np.array([1, 2]))
    with pytest.raises(ValueError, match="dtype"):
        mb.tensor("w", [3], "complex64")


# --- every op of the supported list loads and runs in TFLite Micro ----------------


def _unary(builtin: str, out_scale: float, out_zp: int, **options: object) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 4, 4, 2], "int8", scale=out_scale, zero_point=out_zp)
    mb.op(builtin, [x], [y], **options)
    return mb.build(inputs=[x], outputs=[y])


def _binary(builtin: str) -> bytes:
    mb = ModelBuilder()
    a = mb.tensor("a", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    b = mb.tensor("b", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 4, 4, 2], "int8", scale=0.1, zero_point=3)
    mb.op(builtin, [a, b], [y])
    return mb.build(inputs=[a, b], outputs=[y])


def _pool(builtin: str) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 2, 2, 2], "int8", scale=0.05, zero_point=-10)
    options = {"filter_width": 2, "filter_height": 2, "stride_w": 2, "stride_h": 2}
    mb.op(builtin, [x], [y], padding="VALID", **options)
    return mb.build(inputs=[x], outputs=[y])


def _depthwise() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    # Depthwise filters are [1, H, W, C] and quantized along the last axis.
    w_data = np.arange(18).reshape(1, 3, 3, 2) - 9
    w = mb.tensor("w", [1, 3, 3, 2], "int8", [0.01, 0.02], 0, axis=3, data=w_data)
    b = mb.tensor("b", [2], "int32", scale=[5e-4, 1e-3], zero_point=0, data=np.array([1, 2]))
    y = mb.tensor("y", [1, 4, 4, 2], "int8", scale=0.1, zero_point=0)
    mb.op("DEPTHWISE_CONV_2D", [x, w, b], [y], padding="SAME", depth_multiplier=1)
    return mb.build(inputs=[x], outputs=[y])


def _fully_connected() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 32], "int8", scale=0.05, zero_point=-10)
    w = mb.tensor("w", [3, 32], "int8", scale=0.01, zero_point=0, data=np.ones((3, 32)))
    y = mb.tensor("y", [1, 3], "int8", scale=0.1, zero_point=0)
    mb.op("FULLY_CONNECTED", [x, w, -1], [y], fused_activation_function="RELU")
    return mb.build(inputs=[x], outputs=[y])


def _reshape(builtin: str) -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 1, 1, 32], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 32], "int8", scale=0.05, zero_point=-10)
    if builtin == "RESHAPE":
        shape = mb.tensor("shape", [2], "int32", data=np.array([1, 32]))
        mb.op("RESHAPE", [x, shape], [y], new_shape=[1, 32])
    else:
        mb.op("SQUEEZE", [x], [y], squeeze_dims=[1, 2])
    return mb.build(inputs=[x], outputs=[y])


def _softmax() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 10], "int8", scale=0.1, zero_point=0)
    y = mb.tensor("y", [1, 10], "int8", scale=1 / 256, zero_point=-128)
    mb.op("SOFTMAX", [x], [y], beta=1.0)
    return mb.build(inputs=[x], outputs=[y])


def _dequantize() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 4, 4, 2], "float32")
    mb.op("DEQUANTIZE", [x], [y])
    return mb.build(inputs=[x], outputs=[y])


def _concatenation() -> bytes:
    mb = ModelBuilder()
    a = mb.tensor("a", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    b = mb.tensor("b", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    y = mb.tensor("y", [1, 4, 4, 4], "int8", scale=0.05, zero_point=-10)
    mb.op("CONCATENATION", [a, b], [y], axis=3)
    return mb.build(inputs=[a, b], outputs=[y])


def _pad() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    pads = np.array([[0, 0], [1, 1], [1, 1], [0, 0]])
    p = mb.tensor("paddings", [4, 2], "int32", data=pads)
    y = mb.tensor("y", [1, 6, 6, 2], "int8", scale=0.05, zero_point=-10)
    mb.op("PAD", [x, p], [y])
    return mb.build(inputs=[x], outputs=[y])


def _mean() -> bytes:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4, 4, 2], "int8", scale=0.05, zero_point=-10)
    axes = mb.tensor("axes", [2], "int32", data=np.array([1, 2]))
    y = mb.tensor("y", [1, 1, 1, 2], "int8", scale=0.05, zero_point=-10)
    mb.op("MEAN", [x, axes], [y], keep_dims=True)
    return mb.build(inputs=[x], outputs=[y])


# CONV_2D and QUANTIZE have their own tests above.
OP_MODELS: dict[str, Callable[[], bytes]] = {
    "DEPTHWISE_CONV_2D": _depthwise,
    "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": lambda: _pool("AVERAGE_POOL_2D"),
    "MAX_POOL_2D": lambda: _pool("MAX_POOL_2D"),
    "ADD": lambda: _binary("ADD"),
    "SUB": lambda: _binary("SUB"),
    "MUL": lambda: _binary("MUL"),
    "RESHAPE": lambda: _reshape("RESHAPE"),
    "SQUEEZE": lambda: _reshape("SQUEEZE"),
    "SOFTMAX": _softmax,
    "LOGISTIC": lambda: _unary("LOGISTIC", 1 / 256, -128),
    "TANH": lambda: _unary("TANH", 1 / 128, 0),
    "DEQUANTIZE": _dequantize,
    "CONCATENATION": _concatenation,
    "PAD": _pad,
    "MEAN": _mean,
    "RELU": lambda: _unary("RELU", 0.05, -128),
    "RELU6": lambda: _unary("RELU6", 0.05, -128),
}


@pytest.mark.parametrize("builtin", sorted(OP_MODELS))
def test_single_op_model_runs_in_tflite_micro(builtin: str) -> None:
    model = OP_MODELS[builtin]()
    graph = parse(model).subgraphs[0]
    rng = np.random.default_rng(2)
    inputs = []
    for index in graph.inputs:
        shape = tuple(graph.tensors[index].shape)
        inputs.append(rng.integers(-128, 128, size=shape, dtype=np.int8))
    out = run(model, *inputs)
    assert out.shape == tuple(graph.tensors[graph.outputs[0]].shape)


def test_custom_operator_keeps_its_code_and_flexbuffer_options() -> None:
    import flatbuffers.flexbuffers as flexbuffers

    from mote.frontend.tflite_writer import flexbuffer_map

    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4], "float32")
    y = mb.tensor("y", [1, 4], "float32")
    mb.op("RELU", [x], [y])
    z = mb.tensor("z", [1, 4], "float32")
    mb.custom_op("MyOp", [y], [z], flexbuffer_map({"n": 3, "f": 0.5, "b": True}))
    m = parse(mb.build([x], [z]))
    codes = [(c.builtinCode, c.customCode) for c in m.operatorCodes]
    assert codes == [(schema.BuiltinOperator.RELU, None), (schema.BuiltinOperator.CUSTOM, b"MyOp")]
    options = bytes(np.asarray(m.subgraphs[0].operators[1].customOptions, np.uint8))
    assert flexbuffers.Loads(options) == {"n": 3, "f": 0.5, "b": True}
