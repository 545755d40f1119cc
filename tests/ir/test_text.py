"""Graph.dump: the text form of a graph (format in mote.ir.text), checked line by line."""

from __future__ import annotations

from enum import Enum

import numpy as np

from mote.ir import DType, Graph, GraphNotes, Node, Quant, Tensor
from tests.filecheck import check


def int8(name: str, shape: tuple[int, ...] = (1, 4), scale: float = 0.5, zero_point: int = -1) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((scale,), (zero_point,)))


def conv_graph() -> Graph:
    x, y = int8("x", (1, 4, 4, 2)), int8("y", (1, 4, 4, 3), 0.25, 3)
    w = Tensor("w", (3, 1, 1, 2), DType.INT8, Quant((0.5, 0.125, 0.25), (0, 0, 0), 0), np.arange(6, dtype=np.int8))
    node = Node("conv2d", "conv", [x, w, None], [y], {"stride": (1, 1), "padding": "SAME", "dilation": (1, 1)})
    return Graph("tiny", [x], [y], [node])


def test_a_graph_reads_top_to_bottom() -> None:
    check(conv_graph().dump(), """
        CHECK: graph "tiny" {
        CHECK-NEXT: input %x: i8[1,4,4,2] q(0.5, -1)
        CHECK-NEXT: const %w: i8[3,1,1,2] q(axis 0: 3 scales 0.125..0.5, zp 0) sha256:
        CHECK-NEXT: #0 conv2d "conv" (%x, %w, _) -> %y: i8[1,4,4,3] q(0.25, 3) {dilation=[1, 1], padding="SAME", stride=
        CHECK-NEXT: output %y
        CHECK-NEXT: }
    """)


def test_constants_are_summarized_by_a_checksum() -> None:
    graph = conv_graph()
    before = graph.dump()
    graph.nodes[0].inputs[1].data = np.arange(6, dtype=np.int8)[::-1].copy()
    after = graph.dump()
    assert before != after and len(before) == len(after)
    big = Tensor("big", (64, 64), DType.INT32, None, np.arange(4096, dtype=np.int32))
    graph.nodes[0].inputs[2] = big
    text = graph.dump()
    assert "4095" not in text and "const %big: i32[64,64] sha256:" in text


def test_the_text_is_deterministic() -> None:
    assert conv_graph().dump() == conv_graph().dump()


def test_awkward_names_are_quoted_and_repeated_names_numbered() -> None:
    x, a, b = int8("in put"), int8("t"), int8("t")
    graph = Graph("g\nx", [x], [b], [Node("relu", "r\"1", [x], [a]), Node("relu", "r2", [a], [b])])
    text = graph.dump()
    assert len(text.splitlines()) == 6  # a newline in a name never breaks a line
    check(text, r"""
        CHECK: graph "g\nx" {
        CHECK-NEXT: input %"in put": i8[1,4]
        CHECK-NEXT: #0 relu "r\"1" (%"in put") -> %t: i8[1,4]
        CHECK-NEXT: #1 relu "r2" (%t) -> %t#2: i8[1,4]
        CHECK-NEXT: output %t#2
    """)


class Mode(Enum):
    FAST = "fast"


def test_attribute_values_are_printed_plainly_and_sorted() -> None:
    x, y = int8("x"), int8("y")
    inner = Node("relu", "inner", [x], [y], {"limit": 6})
    attrs = {"z": Mode.FAST, "flag": True, "none": None, "scale": 1 / 3, "nested": {"b": 2, "a": (1, "s")},
             "table": np.zeros(3, np.int16), "node": inner, "tensor": x, "obj": object()}
    text = Graph("g", [x], [y], [Node("accel", "n", [x], [y], attrs)]).dump()
    check(text, """
        CHECK: {flag=true, nested={a=[1, "s"], b=2}, node=relu "inner" {limit=6}, none=none, obj=<object>,
        CHECK-NOT: {
        CHECK-NEXT: output
    """)
    assert 'scale=0.333333, table=array int16[3] sha256:' in text and 'tensor=%x, z="fast"}' in text


def test_notes_add_what_a_compiler_decided() -> None:
    graph = conv_graph()
    x, y = graph.inputs[0], graph.outputs[0]
    notes = GraphNotes(["arena 160 B"], {x: "arena=0+32", y: "arena=32+48"}, {graph.nodes[0]: "cpu mote_conv_s8"})
    text = graph.dump(notes)
    check(text, """
        CHECK: graph "tiny" {
        CHECK-NEXT: // arena 160 B
        CHECK-NEXT: input %x: i8[1,4,4,2] q(0.5, -1) arena=0+32
        CHECK: -> %y: i8[1,4,4,3] q(0.25, 3) arena=32+48 {dilation
    """)
    assert text.splitlines()[4].endswith('stride=[1, 1]}  // cpu mote_conv_s8')


def test_several_outputs_are_bracketed() -> None:
    x, a, b = int8("x"), int8("a"), int8("b")
    text = Graph("g", [x], [a, b], [Node("split", "s", [x], [a, b], {"axis": 1})]).dump()
    assert '#0 split "s" (%x) -> (%a: i8[1,4] q(0.5, -1), %b: i8[1,4] q(0.5, -1)) {axis=1}\n' in text
    assert "  output %a, %b\n" in text
