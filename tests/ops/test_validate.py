"""The op-aware checks (mote.ops.validate): the registry, each op's check and shape rule, each node's prepare."""

from __future__ import annotations

import dataclasses

import pytest

from mote.errors import GraphError, MoteError, UnsupportedError
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.ops import OPS
from mote.ops.validate import validate, verify_graph


def int8(name: str, shape: tuple[int, ...] = (1, 4)) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((0.1,), (0,)))


def relu_graph() -> Graph:
    x, y = int8("x"), int8("y")
    return Graph("g", [x], [y], [Node("relu", "y", [x], [y])])


def test_a_valid_graph_validates() -> None:
    validate(relu_graph())


def test_an_unknown_op() -> None:
    graph = relu_graph()
    graph.nodes[0].op = "no_such_op"
    with pytest.raises(GraphError, match="node 'y': unknown op 'no_such_op'"):
        verify_graph(graph)


def test_the_shape_rule_is_checked() -> None:
    x, y = int8("x"), int8("y", (1, 5))
    with pytest.raises(GraphError, match="output shapes \\[\\(1, 5\\)\\], the op rule says \\[\\(1, 4\\)\\]"):
        verify_graph(Graph("g", [x], [y], [Node("relu", "y", [x], [y])]))


def test_structure_comes_first() -> None:
    graph = relu_graph()
    graph.outputs = []
    with pytest.raises(GraphError, match="no outputs"):
        verify_graph(graph)


def test_an_op_check_runs_before_its_shape_rule() -> None:
    x, y = int8("x", (1, 4, 4, 1)), int8("y", (1, 4, 4, 1))
    node = Node("max_pool2d", "y", [x], [y], {"filter": (0, 2), "stride": (1, 1), "padding": "SAME"})
    with pytest.raises(UnsupportedError, match="'y' .max_pool2d.: filter \\(0, 2\\)"):
        verify_graph(Graph("g", [x], [y], [node]))


def test_a_missing_attribute_is_named() -> None:
    x, y = int8("x", (1, 4, 4, 1)), int8("y", (1, 4, 4, 1))
    node = Node("max_pool2d", "y", [x], [y], {"stride": (1, 1), "padding": "SAME"})
    with pytest.raises(UnsupportedError, match="attribute 'filter' is missing"):
        verify_graph(Graph("g", [x], [y], [node]))


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
