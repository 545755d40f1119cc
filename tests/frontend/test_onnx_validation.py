"""Damaged and hostile ONNX models: each is refused with one MoteError line naming the culprit (file, node,
tensor, attribute), quickly and without allocating what the model asks for."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from mote.errors import ModelFileError, MoteError, UnsupportedError
from mote.frontend.onnx import convert, convert_file
from mote.frontend.onnx.fold import result_size
from tests.frontend.onnx_util import model


def qdq_conv(**conv_attrs: object) -> onnx.ModelProto:
    """x -> Q -> DQ -> Conv(int8 weights) -> Q -> DQ -> y: a small valid QDQ model."""
    rng = np.random.default_rng(0)
    attrs = {"pads": [1, 1, 1, 1], **conv_attrs}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w", "ws"], ["wd"]),
             helper.make_node("Conv", ["xd", "wd"], ["c"], name="conv", **attrs),
             helper.make_node("QuantizeLinear", ["c", "s", "z"], ["cq"]),
             helper.make_node("DequantizeLinear", ["cq", "s", "z"], ["y"])]
    inits = {"s": np.array(0.05, np.float32), "z": np.array(0, np.int8), "ws": np.array(0.01, np.float32),
             "w": rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)}
    return model(nodes, {"x": (1, 3, 8, 8)}, ["y"], inits)


def refused(m: onnx.ModelProto, kind: type[MoteError] = MoteError) -> str:
    with pytest.raises(kind) as info:
        convert(m, "net")
    message = str(info.value)
    assert "\n" not in message and message.startswith("net")
    return message


def node(m: onnx.ModelProto, name: str) -> onnx.NodeProto:
    return next(n for n in m.graph.node if n.name == name)


def init(m: onnx.ModelProto, name: str) -> onnx.TensorProto:
    return next(t for t in m.graph.initializer if t.name == name)


def test_the_base_model_converts() -> None:
    assert [n.op for n in convert(qdq_conv(), "net").graph.nodes] == ["quantize", "conv2d", "dequantize"]


def test_damaged_and_truncated_files(tmp_path: Path) -> None:
    data = qdq_conv().SerializeToString()
    for i, damaged in enumerate([data[: len(data) // 2], b"\x08\x07" + os.urandom(64), b""]):
        path = tmp_path / f"bad{i}.onnx"
        path.write_bytes(damaged)
        with pytest.raises(ModelFileError) as info:
            convert_file(path)
        assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_no_graph_and_opset_problems() -> None:
    empty = helper.make_model(helper.make_graph([], "g", [], []))
    empty.ClearField("graph")
    assert "no graph" in refused(empty, ModelFileError)
    m = qdq_conv()
    m.opset_import[0].version = 999
    assert "opset 999" in refused(m, UnsupportedError)
    m.opset_import[0].domain = "ai.onnx.ml"
    assert "default ONNX opset" in refused(m, ModelFileError)


def test_too_few_inputs_and_empty_required_input() -> None:
    m = qdq_conv()
    del node(m, "conv").input[1:]
    message = refused(m, ModelFileError)
    assert "'conv'" in message and "1 inputs" in message and "Conv" in message
    m = qdq_conv()
    node(m, "conv").input[1] = ""
    assert "required input 1 (W) is empty" in refused(m, ModelFileError)


def test_attribute_of_the_wrong_type() -> None:
    m = qdq_conv()
    conv = node(m, "conv")
    conv.attribute.append(helper.make_attribute("strides", 2.0))
    message = refused(m, ModelFileError)
    assert "'conv'" in message and "'strides' is FLOAT" in message and "INTS" in message


@pytest.mark.parametrize("attrs, words", [({"strides": [0, 1]}, "strides [0, 1]"),
                                          ({"dilations": [1, -2]}, "dilations [1, -2]"),
                                          ({"pads": [1, 1, 1]}, "pads [1, 1, 1]"),
                                          ({"strides": [1, 1, 1]}, "disagree"),
                                          ({"group": 0}, "group 0")])
def test_window_attributes_out_of_range(attrs: dict, words: str) -> None:
    message = refused(qdq_conv(**attrs))
    assert "'conv'" in message and words in message


def test_initializer_data_not_matching_dims() -> None:
    m = qdq_conv()
    w = init(m, "w")
    w.raw_data = w.raw_data[:-5]
    message = refused(m, ModelFileError)
    assert "initializer 'w'" in message and "bytes of data" in message
    m = qdq_conv()
    init(m, "w").dims[0] = -4
    assert "negative dimension" in refused(m, ModelFileError)
    m = qdq_conv()
    init(m, "w").dims[0] = 2**40
    message = refused(m, UnsupportedError)
    assert "initializer 'w'" in message and "limit" in message


def test_typed_data_in_the_wrong_field() -> None:
    m = qdq_conv()
    s = init(m, "s")
    s.CopyFrom(helper.make_tensor("s", TensorProto.INT32, [], [1]))
    s.ClearField("int32_data")
    s.float_data.append(0.5)
    message = refused(m, ModelFileError)
    assert "initializer 's'" in message and "0 values" in message


@pytest.mark.parametrize("dim, words", [(0, "at least 1"), (-3, "at least 1"), (2**40, "limit")])
def test_input_dimensions(dim: int, words: str) -> None:
    m = qdq_conv()
    m.graph.input[0].type.tensor_type.shape.dim[2].dim_value = dim
    message = refused(m)
    assert "input 'x'" in message and words in message


def test_names_empty_duplicated_or_unproduced() -> None:
    m = qdq_conv()
    init(m, "ws").name = ""
    assert "initializer with an empty name" in refused(m, ModelFileError)
    m = qdq_conv()
    m.graph.input.append(m.graph.input[0])
    assert "graph input 'x' is declared twice" in refused(m, ModelFileError)
    m = qdq_conv()
    node(m, "conv").output[0] = "xq"
    message = refused(m, ModelFileError)
    assert "'xq' is already produced" in message and "'conv'" not in message.split(":")[0]
    m = qdq_conv()
    m.graph.output[0].name = "nowhere"
    assert "output 'nowhere' is produced by no node" in refused(m, ModelFileError)
    m = qdq_conv()
    del m.graph.output[:]
    assert "no outputs" in refused(m, ModelFileError)


def test_name_not_utf8() -> None:
    m = qdq_conv()
    node(m, "conv").name = "NAME@@"
    data = m.SerializeToString().replace(b"NAME@@", b"NA\xff\xfe@@")
    assert "not valid UTF-8" in refused(onnx.ModelProto.FromString(data), ModelFileError)


def test_initializer_listed_as_graph_input_is_a_constant() -> None:
    """Old exporters list initializers among the inputs: mote takes them as the constants they hold."""
    m = qdq_conv()
    m.graph.input.append(helper.make_tensor_value_info("w", TensorProto.INT8, [4, 3, 3, 3]))
    graph = convert(m, "net").graph
    assert [t.name for t in graph.inputs] == ["x"]


def test_external_data_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"\x01" * 108)
    m = qdq_conv()
    w = init(m, "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value=str(secret))
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    with pytest.raises(UnsupportedError) as info:
        convert_file(path)
    assert "initializer 'w'" in str(info.value) and "external file" in str(info.value)


def test_model_path_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.onnx"
    os.mkfifo(fifo)
    done: list[BaseException] = []
    worker = threading.Thread(target=lambda: done.append(_raises(lambda: convert_file(fifo))), daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():  # unblock it so the test run can end
        with open(fifo, "wb"):
            pass
    assert done and isinstance(done[0], ModelFileError) and "not a regular file" in str(done[0])
    with pytest.raises(ModelFileError, match="not a regular file"):
        convert_file(tmp_path)


def _raises(fn: object) -> BaseException:
    try:
        fn()  # type: ignore[operator]
    except BaseException as e:  # noqa: BLE001 - returned to the test
        return e
    raise AssertionError("no exception")


def loop_model(trip_count: int) -> onnx.ModelProto:
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "one"], ["acc_out"]), helper.make_node("Identity", ["cond_in"],
                                                                                     ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [])],
        [numpy_helper.from_array(np.array(1.0, np.float32), "one")])
    m = qdq_conv()
    m.graph.node.insert(0, helper.make_node("Loop", ["trip", "cond", "zero"], ["count"], name="loop", body=body))
    m.graph.initializer.extend([numpy_helper.from_array(np.array(trip_count, np.int64), "trip"),
                                numpy_helper.from_array(np.array(True), "cond"),
                                numpy_helper.from_array(np.array(0.0, np.float32), "zero")])
    return m


def test_loop_with_a_huge_trip_count_is_refused_at_once() -> None:
    start = time.perf_counter()
    message = refused(loop_model(2**62), UnsupportedError)
    assert "'loop'" in message and "control flow" in message
    assert time.perf_counter() - start < 2
    loop = helper.make_node("Loop", ["trip", "cond"], ["n"])
    assert result_size(loop, [np.array(2**62), np.array(True)]) is None  # never folded either


@pytest.mark.parametrize("op, inputs", [
    ("ConstantOfShape", [np.array([2**20, 2**20, 2**20], np.int64)]),
    ("Expand", [np.ones(4, np.float32), np.array([2**31, 4], np.int64)]),
    ("Tile", [np.ones((2, 2), np.float32), np.array([2**30, 2**30], np.int64)]),
    ("Range", [np.array(0, np.int64), np.array(2**62, np.int64), np.array(1, np.int64)]),
    ("MatMulInteger", [np.ones((4096, 4096), np.int8), np.ones((4096, 4096), np.int8)]),  # 2**36 multiply-adds
])
def test_huge_constant_expressions_are_refused_before_they_allocate(op: str, inputs: list[np.ndarray]) -> None:
    m = qdq_conv()
    names = [f"{op}_in{i}" for i in range(len(inputs))]
    m.graph.initializer.extend(numpy_helper.from_array(a, n) for a, n in zip(inputs, names))
    m.graph.node.insert(0, helper.make_node(op, names, ["huge"], name="blowup"))
    m.graph.output.append(helper.make_tensor_value_info("huge", TensorProto.UNDEFINED, None))
    start = time.perf_counter()
    message = refused(m, UnsupportedError)
    assert "'blowup'" in message and ("elements" in message or "limit" in message)
    assert time.perf_counter() - start < 2


def test_small_constant_expressions_still_fold() -> None:
    """Shape arithmetic an exporter leaves behind: Shape -> Gather -> Concat -> Reshape of an activation."""
    m = qdq_conv()
    nodes = list(m.graph.node)
    y = nodes[-1]
    y.output[0] = "yd"
    extra = [helper.make_node("Shape", ["w"], ["ws_shape"]),
             helper.make_node("Gather", ["ws_shape", "zero_index"], ["oc"], axis=0),
             helper.make_node("Concat", ["one_index", "minus_one"], ["target"], axis=0),
             helper.make_node("Reshape", ["yd", "target"], ["y"])]
    m.graph.node.extend(extra)
    m.graph.initializer.extend([numpy_helper.from_array(np.array([0], np.int64), "zero_index"),
                                numpy_helper.from_array(np.array([1], np.int64), "one_index"),
                                numpy_helper.from_array(np.array([-1], np.int64), "minus_one")])
    graph = convert(m, "net").graph
    assert graph.outputs[0].shape == (1, 256)


@pytest.mark.parametrize("scale", [0.0, -0.5, float("nan"), float("inf")])
def test_weight_scales_finite_and_positive(scale: float) -> None:
    m = qdq_conv()
    init(m, "ws").CopyFrom(numpy_helper.from_array(np.array(scale, np.float32), "ws"))
    assert "finite and positive" in refused(m, UnsupportedError)


def test_per_channel_axis_and_lengths() -> None:
    m = qdq_conv()
    init(m, "ws").CopyFrom(numpy_helper.from_array(np.full(4, 0.01, np.float32), "ws"))
    dq = next(n for n in m.graph.node if n.input[0] == "w")
    dq.attribute.append(helper.make_attribute("axis", -7))
    assert "axis -7" in refused(m, UnsupportedError)
    dq.attribute[0].i = 1
    assert "4 scales for a constant of shape [4, 3, 3, 3]" in refused(m, UnsupportedError)


def test_int16_weights_are_refused_not_narrowed() -> None:
    m = qdq_conv()
    w = init(m, "w")
    w.CopyFrom(numpy_helper.from_array(np.full((4, 3, 3, 3), 1000, np.int16), "w"))
    assert "int16" in refused(m, ModelFileError)  # opset 13: DequantizeLinear takes no int16
    m.opset_import[0].version = 21
    message = refused(m, UnsupportedError)
    assert "int16" in message and "DequantizeLinear node 'wd'" in message


@pytest.mark.parametrize("op, attrs", [("Softmax", {"axis": 7}), ("Concat", {"axis": -7}), ("Flatten", {"axis": 9})])
def test_axis_out_of_range(op: str, attrs: dict) -> None:
    m = qdq_conv()
    m.graph.node[-1].output[0] = "yd"
    m.graph.node.append(helper.make_node(op, ["yd", "yd"] if op == "Concat" else ["yd"], ["y"], name="tail", **attrs))
    message = refused(m, ModelFileError)
    assert f"op_type:{op}, node name: tail" in message and "axis" in message.lower()
