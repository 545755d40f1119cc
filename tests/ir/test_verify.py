"""The IR checks every frontend gets: Graph.verify (well-formedness) and validate (each node prepares)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mote.errors import GraphError, MoteError, UnsupportedError
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ir.verify import validate
from mote.ops import OPS


def int8(name: str, shape: tuple[int, ...] = (1, 4), scale: float = 0.1, zero_point: int = 0) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((scale,), (zero_point,)))


def relu_graph() -> Graph:
    x, y = int8("x"), int8("y")
    return Graph("g", [x], [y], [Node("relu", "y", [x], [y])])


def test_a_valid_graph_validates() -> None:
    validate(relu_graph())


def test_no_outputs() -> None:
    graph = relu_graph()
    graph.outputs = []
    with pytest.raises(GraphError, match="no outputs"):
        graph.verify()


def test_no_operators() -> None:
    x = int8("x")
    with pytest.raises(GraphError, match="no operators"):
        Graph("g", [x], [x], []).verify()


def test_inputs_and_outputs_need_their_own_names() -> None:
    graph = relu_graph()
    graph.outputs[0].name = "x"
    with pytest.raises(GraphError, match="share a name .'x'."):
        graph.verify()


def test_a_constant_input_is_refused() -> None:
    graph = relu_graph()
    graph.inputs[0].data = np.zeros((1, 4), np.int8)
    with pytest.raises(GraphError, match="'x' is a constant"):
        graph.verify()


def test_constant_data_must_fill_the_shape() -> None:
    w = Tensor("w", (2, 2), DType.INT8, Quant((0.1,), (0,)), np.zeros(3, np.int8))
    x, y = int8("x", (1, 2)), int8("y", (1, 2))
    graph = Graph("g", [x], [y], [Node("add", "y", [x, w], [y])])
    with pytest.raises(GraphError, match="'w': 3 constant values for shape"):
        graph.verify()


def test_per_channel_quantization_needs_an_axis() -> None:
    graph = relu_graph()
    graph.outputs[0].quant = Quant((0.1, 0.2, 0.3, 0.4), (0, 0, 0, 0), None)
    with pytest.raises(UnsupportedError, match="'y': per-channel quantization along axis None"):
        graph.verify()


def test_zero_points_checked_against_int32_too() -> None:
    graph = relu_graph()
    bias = Tensor("b", (4,), DType.INT32, Quant((0.1,), (2**31,)), np.zeros(4, np.int32))
    graph.nodes[0].inputs.append(bias)
    with pytest.raises(UnsupportedError, match="'b': zero point 2147483648 is outside the int32 range"):
        graph.verify()


def test_an_op_check_runs_before_its_shape_rule() -> None:
    x, y = int8("x", (1, 4, 4, 1)), int8("y", (1, 4, 4, 1))
    node = Node("max_pool2d", "y", [x], [y], {"filter": (0, 2), "stride": (1, 1), "padding": "SAME"})
    with pytest.raises(UnsupportedError, match="'y' .max_pool2d.: filter \\(0, 2\\)"):
        Graph("g", [x], [y], [node]).verify()


def test_a_missing_attribute_is_named() -> None:
    x, y = int8("x", (1, 4, 4, 1)), int8("y", (1, 4, 4, 1))
    node = Node("max_pool2d", "y", [x], [y], {"stride": (1, 1), "padding": "SAME"})
    with pytest.raises(UnsupportedError, match="attribute 'filter' is missing"):
        Graph("g", [x], [y], [node]).verify()


def test_validate_names_the_node_when_prepare_fails_unexpectedly(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(node: Node) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setitem(OPS, "relu", dataclasses.replace(OPS["relu"], prepare=broken))
    with pytest.raises(UnsupportedError, match="node 'y' .relu.: mote cannot compile this node .ZeroDivisionError"):
        validate(relu_graph())


def test_validate_adds_the_node_to_a_helper_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def helper_error(node: Node) -> None:
        raise UnsupportedError("a scale ratio (inf) is not finite")

    monkeypatch.setitem(OPS, "relu", dataclasses.replace(OPS["relu"], prepare=helper_error))
    with pytest.raises(MoteError, match="^node 'y' .relu.: a scale ratio"):
        validate(relu_graph())
