"""The IR's structural checks (Graph.verify): tensors, quantization, graph inputs and outputs, order."""

from __future__ import annotations

import numpy as np
import pytest

from mote.errors import GraphError, UnsupportedError
from mote.ir import DType, Graph, Node, Quant, Tensor


def int8(name: str, shape: tuple[int, ...] = (1, 4), scale: float = 0.1, zero_point: int = 0) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((scale,), (zero_point,)))


def relu_graph() -> Graph:
    x, y = int8("x"), int8("y")
    return Graph("g", [x], [y], [Node("relu", "y", [x], [y])])


def test_a_valid_graph_verifies() -> None:
    relu_graph().verify()


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


def test_an_input_used_before_it_is_produced() -> None:
    x, h, y = int8("x"), int8("h"), int8("y")
    graph = Graph("g", [x], [y], [Node("relu", "y", [h], [y]), Node("relu", "h", [x], [h])])
    with pytest.raises(GraphError, match="node 'y' .relu.: input 'h' is used before it is produced"):
        graph.verify()


def test_a_tensor_produced_twice() -> None:
    x, y = int8("x"), int8("y")
    graph = Graph("g", [x], [y], [Node("relu", "a", [x], [y]), Node("relu", "b", [x], [y])])
    with pytest.raises(GraphError, match="node 'b' .relu.: output 'y' is produced twice"):
        graph.verify()


def test_a_graph_output_nobody_produces() -> None:
    graph = relu_graph()
    graph.outputs.append(int8("z"))
    with pytest.raises(GraphError, match="graph output 'z' is never produced"):
        graph.verify()


def test_the_structure_knows_no_ops() -> None:
    """Op names, attributes and shape rules are mote.ops.validate's business: the IR lets them pass."""
    graph = relu_graph()
    graph.nodes[0].op = "no_such_op"
    graph.verify()


def test_the_per_node_hook_runs_in_order_after_the_nodes_tensors() -> None:
    x, h, y = int8("x"), int8("h"), int8("y")
    graph = Graph("g", [x], [y], [Node("relu", "h", [x], [h]), Node("relu", "y", [h], [y])])
    seen: list[str] = []
    graph.verify(lambda node: seen.append(node.name))
    assert seen == ["h", "y"]


def test_state_may_be_written_by_several_nodes() -> None:
    """A resource variable: ASSIGN_VARIABLE nodes write it (any number of them), others read it."""
    x, v = int8("x"), Tensor("v", (1, 4), DType.INT8, Quant((0.1,), (0,)), variable=True)
    y = int8("y")
    Graph("g", [x], [y], [Node("assign_variable", "a", [x], [v]), Node("read_variable", "y", [v], [y]),
                          Node("assign_variable", "b", [y], [v])]).verify()


def test_a_subgraph_may_pass_an_input_through_or_give_a_constant() -> None:
    x, c = int8("x"), int8("c")
    c.data = np.zeros((1, 4), np.int8)
    Graph("branch", [x], [x, c, x]).verify_subgraph()
    with pytest.raises(GraphError, match="no operators"):
        Graph("g", [x], [x]).verify()


def test_a_subgraph_keeps_state_inside() -> None:
    v = Tensor("v", (1, 4), DType.INT8, variable=True)
    with pytest.raises(GraphError, match="'v' is state"):
        Graph("branch", [v], [v]).verify_subgraph()
