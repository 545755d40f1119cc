"""What an ONNX model mote cannot compile gets: one line naming the op, node, domain or input, and what to do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from mote.errors import ModelFileError, MoteError, UnsupportedError
from mote.frontend.onnx import convert, convert_file
from tests.frontend.onnx_util import model, quantize_qdq
from tests.frontend.test_onnx_qdq import after_conv, conv_model


def error(m: onnx.ModelProto, kind: type[MoteError] = UnsupportedError, **kw: object) -> str:
    with pytest.raises(kind) as info:
        convert(m, "net", **kw)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    return message


def test_unsupported_op_names_op_node_and_domain() -> None:
    rng = np.random.default_rng(0)
    q = quantize_qdq(after_conv("Conv", rng, {"w2": np.ones((5, 5, 1, 1), np.float32)}, ["w2"]), rng)
    for node in q.graph.node:
        if node.op_type == "Conv" and node.output[0] == "y_QuantizeLinear_Input":
            node.op_type, node.name = "Hardmax", "mystery"
            del node.input[1:]
    message = error(q)
    assert "Hardmax" in message and "'mystery'" in message and "ai.onnx" in message


def test_unsupported_custom_domain_op() -> None:
    rng = np.random.default_rng(1)
    q = quantize_qdq(conv_model(rng), rng)
    q.graph.node.append(helper.make_node("Frobnicate", ["y"], ["z"], domain="com.example", name="frob"))
    message = error(q)
    assert "Frobnicate" in message and "com.example" in message and "'frob'" in message


def test_unsupported_attribute_is_named() -> None:
    rng = np.random.default_rng(2)
    q = quantize_qdq(after_conv("MaxPool", rng, kernel_shape=[2, 2]), rng)
    pool = next(n for n in q.graph.node if n.op_type == "MaxPool")
    pool.attribute.append(helper.make_attribute("frobnication", 1))
    message = error(q)
    assert "frobnication" in message and "MaxPool" in message


def test_unsupported_attribute_value() -> None:
    rng = np.random.default_rng(3)
    q = quantize_qdq(after_conv("Pad", rng, {"p": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)}, ["p"],
                                mode="reflect"), rng)
    assert "reflect" in error(q)


def test_float_model_says_how_to_quantize() -> None:
    message = error(conv_model(np.random.default_rng(4)))
    assert "mote quantize" in message and "--calib" in message


def test_dynamic_shape_names_input_and_offers_input_shape() -> None:
    rng = np.random.default_rng(5)
    q = quantize_qdq(conv_model(rng), rng)
    dim = q.graph.input[0].type.tensor_type.shape.dim[2]
    dim.Clear()
    dim.dim_param = "height"
    message = error(q)
    assert "'x'" in message and "--input-shape x=1,4,1,8" in message
    graph = convert(q, "net", input_shapes={"x": (1, 4, 9, 8)}).graph
    assert graph.inputs[0].shape == (1, 9, 8, 4)
    assert "'nope'" in error(q, MoteError, input_shapes={"x": (1, 4, 9, 8), "nope": (1,)})


def test_a_dynamic_batch_dimension_is_taken_as_one_and_noted() -> None:
    rng = np.random.default_rng(5)
    q = quantize_qdq(conv_model(rng), rng)
    dim = q.graph.input[0].type.tensor_type.shape.dim[0]
    dim.Clear()
    dim.dim_param = "batch"
    graph = convert(q, "net").graph
    assert graph.inputs[0].shape == (1, 9, 8, 4)
    assert graph.notes == ["input 'x': the dynamic batch dimension 'batch' is taken as 1 (--input-shape sets another)"]
    assert convert(q, "net", input_shapes={"x": (1, 4, 9, 8)}).graph.notes == []


def test_not_an_onnx_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"\x00\x01 definitely not protobuf \xff" * 10)
    with pytest.raises(ModelFileError):
        convert_file(bad)


def test_matmul_of_two_activations_of_rank_one() -> None:
    """Two activations multiply as BATCH_MATMUL, which needs matrices: a vector operand is refused."""
    rng = np.random.default_rng(6)
    f = model([helper.make_node("MatMul", ["x", "x2"], ["y"])], {"x": (4,), "x2": (4, 4)}, ["y"])
    message = error(quantize_qdq(f, rng))
    assert "MatMul" in message and "rank 2 to 5" in message
