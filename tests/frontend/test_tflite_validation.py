"""A damaged or unsupported .tflite file is refused with one line naming the culprit, never a traceback.

Each test starts from a small valid model (written with mote's .tflite writer), breaks one thing in it
through the flatbuffer object API, and checks the error class and that the message names the field.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import pytest
import tflite_micro.tensorflow.lite.micro.python.schema_py_generated as schema

from mote.errors import GraphError, ModelFileError, MoteError, UnsupportedError
from mote.frontend.tflite import load_tflite, load_tflite_file
from mote.frontend.tflite_writer import ModelBuilder

X, W, B, Y = 0, 1, 2, 3  # the tensors of conv_model


def conv_model(weights: np.ndarray | None = None, w_dtype: str = "int8") -> bytes:
    """x [1, 5, 5, 2] -> CONV_2D 3x3 SAME, three output channels, per-channel weights, bias -> y."""
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 5, 5, 2], "int8", scale=0.05, zero_point=-3)
    data = weights if weights is not None else np.arange(54).reshape(3, 3, 3, 2) % 7 - 3
    w = mb.tensor("w", [3, 3, 3, 2], w_dtype, scale=[0.01, 0.02, 0.03], zero_point=0, axis=0, data=data)
    b = mb.tensor("b", [3], "int32", scale=[0.0005, 0.001, 0.0015], zero_point=0, data=np.array([10, -20, 30]))
    y = mb.tensor("y", [1, 5, 5, 3], "int8", scale=0.1, zero_point=2)
    mb.op("CONV_2D", [x, w, b], [y], padding="SAME", stride_h=1, stride_w=1, dilation_h_factor=1,
          dilation_w_factor=1, fused_activation_function="RELU")
    return mb.build([x], [y])


def concat_model(axis: int) -> bytes:
    mb = ModelBuilder()
    a = mb.tensor("a", [1, 2, 2, 3], "int8", scale=0.1, zero_point=0)
    b = mb.tensor("b", [1, 2, 2, 3], "int8", scale=0.1, zero_point=0)
    shape = [1, 2, 2, 3]
    if -4 <= axis < 4:
        shape[axis] *= 2
    y = mb.tensor("y", shape, "int8", scale=0.1, zero_point=0)
    mb.op("CONCATENATION", [a, b], [y], axis=axis, fused_activation_function="NONE")
    return mb.build([a, b], [y])


def edited(data: bytes, edit: Callable[[Any], None]) -> bytes:
    """`data` with `edit` applied to its ModelT, repacked."""
    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    edit(model)
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def refused(data: bytes, error: type[MoteError], *words: str) -> str:
    """Load `data`, expecting `error` with a one-line message containing every word."""
    with pytest.raises(error) as info:
        load_tflite(data, "m")
    message = str(info.value)
    assert "\n" not in message and "\r" not in message
    for word in words:
        assert word in message, message
    return message


def sub(model: Any) -> Any:
    return model.subgraphs[0]


def op(model: Any) -> Any:
    return model.subgraphs[0].operators[0]


def tensor(model: Any, index: int) -> Any:
    return model.subgraphs[0].tensors[index]


def test_the_valid_models_load() -> None:
    assert [n.op for n in load_tflite(conv_model(), "m").nodes] == ["conv2d"]
    assert load_tflite(concat_model(3), "m").nodes[0].attrs["axis"] == 3


# Flatbuffer indices and counts


def test_operator_input_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: op(m).inputs.__setitem__(1, 99)), ModelFileError, "node 0", "tensor 99")


def test_operator_output_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m), "outputs", [-1])), ModelFileError, "node 0", "tensor -1")


def test_subgraph_output_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(sub(m), "outputs", [7])), ModelFileError, "subgraph outputs",
            "tensor 7")


def test_subgraph_input_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(sub(m), "inputs", [-2])), ModelFileError, "subgraph inputs")


def test_opcode_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m), "opcodeIndex", 5)), ModelFileError, "operator code index 5")


def test_buffer_index_out_of_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, W), "buffer", 40)), ModelFileError, "'w'", "buffer 40")


def test_buffer_size_must_match_the_shape() -> None:
    def shrink(m: Any) -> None:
        m.buffers[tensor(m, W).buffer].data = m.buffers[tensor(m, W).buffer].data[:10]

    refused(edited(conv_model(), shrink), ModelFileError, "'w'", "10 bytes", "needs 54")


def test_a_subgraph_nothing_calls_is_left_out() -> None:
    graph = load_tflite(edited(conv_model(), lambda m: m.subgraphs.append(sub(m))), "m")
    assert [n.op for n in graph.nodes] == ["conv2d"] and not graph.subgraphs()


def test_at_least_one_output() -> None:
    refused(edited(conv_model(), lambda m: setattr(sub(m), "outputs", [])), UnsupportedError, "no outputs")


def test_at_least_one_operator() -> None:
    refused(edited(conv_model(), lambda m: setattr(sub(m), "operators", [])), UnsupportedError, "no operators")


def test_sparse_tensors_are_refused() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, W), "sparsity", schema.SparsityParametersT())),
            UnsupportedError, "'w'", "sparse")


# Enum codes and options


def test_padding_code_outside_the_enum() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m).builtinOptions, "padding", 7)), ModelFileError,
            "node 0", "padding code 7")


def test_activation_code_outside_the_enum() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m).builtinOptions, "fusedActivationFunction", 42)),
            ModelFileError, "node 0", "activation code 42")


def test_tensor_type_outside_what_mote_reads() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, Y), "type", 99)), UnsupportedError, "'y'", "dtype 99")


def test_options_of_another_operator() -> None:
    def pool_options(m: Any) -> None:
        op(m).builtinOptionsType = schema.BuiltinOptions.Pool2DOptions
        op(m).builtinOptions = schema.Pool2DOptionsT()

    refused(edited(conv_model(), pool_options), ModelFileError, "Pool2DOptions", "Conv2DOptions")


def test_missing_conv_options() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m), "builtinOptions", None)), ModelFileError, "options")


def test_invalid_quantized_bias_type() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m).builtinOptions, "quantizedBiasType", 99)),
            UnsupportedError, "bias type 99")


# Shapes and sizes


@pytest.mark.parametrize("dim", [0, -1])
def test_dimensions_below_one(dim: int) -> None:
    refused(edited(conv_model(), lambda m: tensor(m, X).shape.__setitem__(1, dim)), UnsupportedError, "'x'",
            "below 1")


def test_a_shape_product_cannot_exhaust_memory() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, X), "shape", [1 << 20, 1 << 20, 1 << 20, 2])),
            UnsupportedError, "'x'", "limit")


def test_a_constant_graph_input_is_refused() -> None:
    refused(edited(conv_model(), lambda m: setattr(sub(m), "inputs", [W])), GraphError, "'w'", "constant")


def test_names_that_are_not_utf8_are_replaced() -> None:
    graph = load_tflite(edited(conv_model(), lambda m: setattr(tensor(m, Y), "name", b"y\xff\xfe")), "m")
    assert graph.outputs[0].name == "y\ufffd\ufffd"


# Quantization (checked on the IR, for every frontend)


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), 0.0, -0.1])
def test_scales_must_be_finite_and_positive(scale: float) -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, Y).quantization, "scale", [scale])),
            UnsupportedError, "'y'", "scale")


def test_zero_point_within_the_dtype() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, Y).quantization, "zeroPoint", [200])),
            UnsupportedError, "'y'", "zero point 200", "int8")


def test_a_zero_point_for_every_scale() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, Y).quantization, "zeroPoint", [])),
            GraphError, "'y'", "zero points")


def test_per_channel_axis_in_range() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, W).quantization, "quantizedDimension", 9)),
            UnsupportedError, "'w'", "axis 9")


def test_per_channel_scales_one_per_channel() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, W).quantization, "quantizedDimension", 3)),
            UnsupportedError, "'w'", "3 per-channel scales for 2 channels")


def test_an_int8_activation_without_quantization() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, Y), "quantization", None)), UnsupportedError,
            "'y'", "no quantization")


def test_int16_weights_are_refused_not_narrowed() -> None:
    weights = np.full((3, 3, 3, 2), 1000)
    refused(conv_model(weights, w_dtype="int16"), UnsupportedError, "'w'", "int16", "never narrowed")


# Per-op checks


@pytest.mark.parametrize(("field", "word"), [("strideH", "stride"), ("dilationWFactor", "dilation")])
def test_strides_and_dilations_at_least_one(field: str, word: str) -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m).builtinOptions, field, 0)), UnsupportedError, "'y'", word)


def test_a_window_larger_than_the_input_leaves_no_output() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m).builtinOptions, "padding", schema.Padding.VALID)),
            MoteError, "'y'")

    def huge_dilation(m: Any) -> None:
        op(m).builtinOptions.padding = schema.Padding.VALID
        op(m).builtinOptions.dilationHFactor = 4

    refused(edited(conv_model(), huge_dilation), UnsupportedError, "larger than the input height")


def test_a_missing_required_input() -> None:
    refused(edited(conv_model(), lambda m: op(m).inputs.__setitem__(1, -1)), UnsupportedError, "'y'", "filter",
            "missing")


def test_too_few_inputs() -> None:
    refused(edited(conv_model(), lambda m: setattr(op(m), "inputs", [X])), UnsupportedError, "'y'", "1 inputs")


def test_bias_of_the_wrong_dtype() -> None:
    refused(edited(conv_model(), lambda m: setattr(tensor(m, B), "type", schema.TensorType.INT8)), MoteError, "'b'")


@pytest.mark.parametrize("axis", [-1, -4])
def test_negative_concatenation_axes_count_from_the_end(axis: int) -> None:
    graph = load_tflite(concat_model(axis), "m")
    assert graph.nodes[0].attrs["axis"] == axis + 4


@pytest.mark.parametrize("axis", [-7, 4, 9])
def test_concatenation_axis_outside_minus_rank_to_rank(axis: int) -> None:
    refused(concat_model(axis), UnsupportedError, f"axis {axis}", "4-D")


def test_fully_connected_bias_scale_as_tflite_micro_requires() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4], "int8", scale=0.5, zero_point=0)
    w = mb.tensor("w", [2, 4], "int8", scale=0.25, zero_point=0, data=np.ones((2, 4)))
    b = mb.tensor("b", [2], "int32", scale=0.5, zero_point=0, data=np.array([1, 2]))  # 0.5 * 0.25 expected
    y = mb.tensor("y", [1, 2], "int8", scale=1.0, zero_point=0)
    mb.op("FULLY_CONNECTED", [x, w, b], [y], fused_activation_function="NONE")
    refused(mb.build([x], [y]), UnsupportedError, "'y'", "bias scale")


def test_squeeze_dims_must_name_extent_one_dimensions() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 3, 1], "int8", scale=0.5, zero_point=0)
    y = mb.tensor("y", [1, 3], "int8", scale=0.5, zero_point=0)
    mb.op("SQUEEZE", [x], [y], squeeze_dims=[1])
    refused(mb.build([x], [y]), UnsupportedError, "'y'", "squeeze dimensions [1]")


def test_an_activation_bound_beyond_int32_is_refused() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [4], "int8", scale=1e-30, zero_point=0)
    y = mb.tensor("y", [4], "int8", scale=1e-30, zero_point=0)
    mb.op("RELU6", [x], [y])
    refused(mb.build([x], [y]), UnsupportedError, "'y'", "outside int32")


def test_a_model_path_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "model.tflite"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_tflite_file(fifo)
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_tflite_file(tmp_path)


def test_quantizing_floats_at_a_scale_that_overflows_int32_is_refused() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [4], "float32")
    y = mb.tensor("y", [4], "int8", scale=1e-30, zero_point=-3)
    mb.op("QUANTIZE", [x], [y])
    refused(mb.build([x], [y]), UnsupportedError, "'y'", "overflow")


def test_new_shape_longer_than_tflite_micro_takes() -> None:
    mb = ModelBuilder()
    x = mb.tensor("x", [1, 4], "int8", scale=0.5, zero_point=0)
    y = mb.tensor("y", [4], "int8", scale=0.5, zero_point=0)
    mb.op("RESHAPE", [x], [y], new_shape=[1] * 9 + [4])
    refused(mb.build([x], [y]), UnsupportedError, "newShape", "10 dimensions")
