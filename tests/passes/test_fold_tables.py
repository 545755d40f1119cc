"""fold_tables: an elementwise int8 op of two functions of one tensor becomes one table, the same bytes for every
input value (the reference interpreter on the graph before and after), and in the generated C."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mote.codegen.compile import compile_graph
from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.passes.fold_tables import fold_tables
from mote.reference import interpret
from mote.targets.host import build_host

SHAPE = (1, 2, 160)  # 320 values: every byte once, the rest repeated


def act(name: str, scale: float, zero_point: int, shape: tuple[int, ...] = SHAPE) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((scale,), (zero_point,)))


def sigmoid_table(x: Tensor, s: Tensor) -> np.ndarray:
    values = np.arange(256, dtype=np.uint8).view(np.int8).astype(np.float64)
    real = 1 / (1 + np.exp(-x.scale * (values - x.zero_point)))
    return np.clip(np.round(real / s.scale) + s.zero_point, -128, 127).astype(np.int8)


def graph(op: str, operands: str, other_reader: bool = False, b_shape: tuple[int, ...] = SHAPE) -> Graph:
    """x -> table_lookup -> s; op(a, b) -> y with a, b from `operands` ("xs": x and s, "sx", "xx", "ss")."""
    x, s, y = act("x", 0.05, 3), act("s", 1 / 256, -128), act("y", 0.03, -5)
    nodes = [Node("table_lookup", "sig", [x, Tensor("t", (256,), DType.INT8, data=sigmoid_table(x, s))], [s])]
    pick = {"x": x, "s": s}
    a, b = pick[operands[0]], pick[operands[1]]
    if b_shape != SHAPE:
        b = act("b", 0.04, 0, b_shape)
    nodes.append(Node(op, "y", [a, b], [y], {"activation": "NONE"}))
    outputs = [y]
    if other_reader:
        z = act("z", 1 / 256, -128)
        nodes.append(Node("relu", "z", [s], [z]))
        outputs.append(z)
    inputs = [x] if b_shape == SHAPE else [x, b]
    return Graph("g", inputs, outputs, nodes)


def every_byte() -> dict[str, np.ndarray]:
    values = np.resize(np.arange(-128, 128, dtype=np.int8), int(np.prod(SHAPE)))
    return {"x": values.reshape(SHAPE)}


@pytest.mark.parametrize("op, operands", [("mul", "xs"), ("mul", "sx"), ("mul", "xx"), ("add", "xs"),
                                          ("sub", "sx"), ("mul", "ss")])
def test_folds_to_one_table_with_the_same_bytes(op: str, operands: str) -> None:
    g = graph(op, operands)
    folded = fold_tables(g)
    assert [n.op for n in folded.nodes] == ["table_lookup"] and folded.nodes[0].inputs[0] is g.inputs[0]
    a, b = interpret(g, every_byte()), interpret(folded, every_byte())
    assert np.array_equal(a["y"], b["y"])
    assert len(np.unique(a["y"])) > 20  # a table that does something


def test_a_table_read_elsewhere_stays_and_broadcasting_does_not_fold() -> None:
    folded = fold_tables(graph("mul", "xs", other_reader=True))
    assert [n.op for n in folded.nodes] == ["table_lookup", "table_lookup", "relu"]
    g = graph("mul", "xs", b_shape=(1, 1, 160))
    assert fold_tables(g) is g


def test_in_the_generated_c(tmp_path: Path) -> None:
    g = graph("mul", "xs")
    compiled = compile_graph(g)
    assert [layer.op for layer in compiled.layers] == ["table_lookup"]
    binary = build_host(compiled, tmp_path / "p", sanitize=True)
    feeds = every_byte()
    assert np.array_equal(binary.run(feeds)[0]["y"], interpret(g, feeds)["y"])


@pytest.mark.parametrize("outer", ["quantize", "table_lookup"])
def test_a_requantization_or_table_of_a_table_is_one_table(outer: str) -> None:
    x, s, y = act("x", 0.05, 3), act("s", 1 / 256, -128), act("y", 0.013, 9)
    first = Node("table_lookup", "sig", [x, Tensor("t", (256,), DType.INT8, data=sigmoid_table(x, s))], [s])
    second = Node("quantize", "y", [s], [y]) if outer == "quantize" else \
        Node("table_lookup", "y", [s, Tensor("t2", (256,), DType.INT8, data=sigmoid_table(s, y))], [y])
    g = Graph("g", [x], [y], [first, second])
    folded = fold_tables(g)
    assert [n.op for n in folded.nodes] == ["table_lookup"] and folded.nodes[0].inputs[0] is x
    a, b = interpret(g, every_byte()), interpret(folded, every_byte())
    assert np.array_equal(a["y"], b["y"]) and len(np.unique(a["y"])) > 10
    kept = Graph("g", [x], [s, y], [first, second])  # the inner table's output is read elsewhere: it stays
    assert [n.op for n in fold_tables(kept).nodes] == ["table_lookup", "table_lookup"]
