"""Buffers and lifetimes: one buffer per activation tensor (in-place ops share their input's), one per
node scratch, each live from the step that writes it to the last step that reads it."""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Graph, Node, Quant, Tensor
from mote.memory.lifetimes import buffers
from mote.ops.registry import Overlap


def int8(name: str, shape: tuple[int, ...] = (1, 16)) -> Tensor:
    return Tensor(name, shape, DType.INT8, Quant((0.5,), (0,)))


def chain() -> Graph:
    """x -> relu y -> reshape r (in place) -> add(r, x) z."""
    x, y, r, z = int8("x"), int8("y"), int8("r", (16,)), int8("z", (16,))
    shape = Tensor("shape", (1,), DType.INT32, None, np.array([16], np.int32))
    return Graph("g", [x], [z], [Node("relu", "y", [x], [y]), Node("reshape", "r", [y, shape], [r]),
                                 Node("add", "z", [r, x], [z])])


def test_each_tensor_gets_a_buffer_and_in_place_outputs_share_it() -> None:
    graph = chain()
    x, z = graph.inputs[0], graph.outputs[0]
    y, r = graph.nodes[0].outputs[0], graph.nodes[1].outputs[0]
    bufs = buffers(graph, {})
    assert bufs.of_tensor[y] is bufs.of_tensor[r] and bufs.of_tensor[y].tensors == [y, r]
    assert [(b.name, b.start, b.end) for b in bufs.all] == [("x", -1, 2), ("y", 0, 2), ("z", 2, 3)]
    assert bufs.of_tensor[x].end == 2 and bufs.of_tensor[z].end == len(graph.nodes)  # outputs live to the end
    assert graph.nodes[1].inputs[1] not in bufs.of_tensor  # constants live in flash


def test_a_scratch_buffer_lives_for_its_node_only() -> None:
    graph = chain()
    bufs = buffers(graph, {0: 40, 2: 0})
    scratch = bufs.of_scratch[0]
    assert (scratch.size, scratch.start, scratch.end, scratch.scratch_of) == (40, 0, 0, graph.nodes[0])
    assert 2 not in bufs.of_scratch


def test_an_overlap_is_kept_only_for_an_input_read_for_the_last_time() -> None:
    graph = chain()
    share = Overlap(at_most=0)
    bufs = buffers(graph, {}, {2: [(0, share), (1, share)], 0: [(0, share)]})
    z_buf, y_buf = bufs.of_tensor[graph.outputs[0]], bufs.of_tensor[graph.nodes[0].outputs[0]]
    assert bufs.shares == {(z_buf, y_buf): share, (z_buf, bufs.of_tensor[graph.inputs[0]]): share}
    # x is read again by the add, so relu's output may not overlap it
    assert (y_buf, bufs.of_tensor[graph.inputs[0]]) not in bufs.shares
