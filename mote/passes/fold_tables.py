"""fold_tables: an elementwise int8 op whose two operands are both functions of one int8 tensor -> one table.

The ONNX frontend makes a chain of elementwise float ops of one quantized tensor a table_lookup (a byte
looked up). SiLU written as x * sigmoid(x) comes as table_lookup(x) (the sigmoid) and a mul of x by it: the
mul's output is then a function of x's byte alone too. This pass replaces each

    x -> table_lookup(T) -> s;  mul / add / sub (x, s) or (s, x) or (x, x) or (s, s) -> y

(same shapes, int8 throughout, no broadcasting) by table_lookup(x, T') -> y, with T'[v] the op's own reference
on the operands' values for the byte v: the same bytes, one lookup instead of the op's requantization per
element. Likewise an int8 -> int8 requantization (quantize) or table of a table's output, x -> table_lookup(T)
-> s -> quantize / table_lookup -> y: one table of the two. A table whose output nothing else reads is dropped.
The graph given is not changed: a rewritten copy is returned (the same object when nothing matched).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mote.ir import DType, Graph, Node, Tensor
from mote.ops.registry import OPS

BINARY = ("mul", "add", "sub")
VALUES = np.arange(-128, 128, dtype=np.int8)  # every int8 value; a table is indexed by its byte


def _table_of(producers: dict[Tensor, Node], t: Tensor) -> tuple[Tensor, np.ndarray | None] | None:
    """(the int8 tensor t is a function of, its table or None for t itself); None if t is neither an int8
    activation nor a table_lookup's output."""
    if t.dtype is not DType.INT8 or t.is_const or t.variable:
        return None
    node = producers.get(t)
    if node is not None and node.op == "table_lookup" and node.inputs[0] is not None:
        table = node.inputs[1]
        assert table is not None and table.data is not None
        return node.inputs[0], np.asarray(table.data, np.int8).reshape(256)
    return t, None


def _table(node: Node, x: Tensor, fa: np.ndarray | None, fb: np.ndarray | None) -> np.ndarray:
    """T'[byte] for every int8 value: the op's reference on (fa(v), fb(v)), evaluated in chunks of x's shape."""
    op = OPS[node.op]
    params = op.prepare(node)
    out = np.zeros(256, np.int8)
    for start in range(0, 256, x.size):
        values = np.zeros(x.size, np.int8)
        chunk = VALUES[start:start + x.size]
        values[:chunk.size] = chunk
        a = values if fa is None else fa[values.view(np.uint8)]
        b = values if fb is None else fb[values.view(np.uint8)]
        y = op.reference(node, params, [a.reshape(x.shape), b.reshape(x.shape)])[0]
        out[chunk.view(np.uint8)] = np.asarray(y, np.int8).reshape(-1)[:chunk.size]
    return out


def _composed(node: Node, producers: dict[Tensor, Node]) -> Node | None:
    """table_lookup(x, T2[T1]) for a quantize / table_lookup (int8 -> int8) of a table's output, or None."""
    s, y = node.inputs[0], node.outputs[0]
    if node.op not in ("quantize", "table_lookup") or len(node.inputs) != (1 if node.op == "quantize" else 2) \
            or s is None or s.dtype is not DType.INT8 or y.dtype is not DType.INT8 or s.shape != y.shape:
        return None
    f = _table_of(producers, s)
    if f is None or f[1] is None:
        return None
    x, inner = f
    op = OPS[node.op]
    params = op.prepare(node)
    outer = np.zeros(256, np.int8)
    for start in range(0, 256, s.size):  # the op's reference on every byte, in chunks of its input's shape
        values = np.zeros(s.size, np.int8)
        chunk = VALUES[start:start + s.size]
        values[:chunk.size] = chunk
        out = op.reference(node, params, [values.reshape(s.shape)])[0]
        outer[chunk.view(np.uint8)] = np.asarray(out, np.int8).reshape(-1)[:chunk.size]
    table = Tensor(f"{node.name}_table", (256,), DType.INT8, data=outer[inner.view(np.uint8)])
    return Node("table_lookup", node.name, [x, table], [y], {}, index=node.index)


def _folded(node: Node, producers: dict[Tensor, Node]) -> Node | None:
    if node.op in ("quantize", "table_lookup"):
        return _composed(node, producers)
    if node.op not in BINARY or len(node.inputs) != 2 or any(t is None for t in node.inputs):
        return None
    a, b = node.inputs
    y = node.outputs[0]
    assert a is not None and b is not None
    if y.dtype is not DType.INT8 or a.shape != y.shape or b.shape != y.shape:
        return None
    fa, fb = _table_of(producers, a), _table_of(producers, b)
    if fa is None or fb is None or fa[0] is not fb[0] or (fa[1] is None and fb[1] is None and a is not b):
        return None
    x = fa[0]
    if x.shape != y.shape:
        return None
    table = Tensor(f"{node.name}_table", (256,), DType.INT8, data=_table(node, x, fa[1], fb[1]))
    return Node("table_lookup", node.name, [x, table], [y], {}, index=node.index)


def fold_tables(graph: Graph) -> Graph:
    """`graph` with every binary elementwise op of two functions of one int8 tensor as one table_lookup."""
    producers = graph.producer()
    folded = {id(n): new for n in graph.nodes if (new := _folded(n, producers)) is not None}
    if not folded:
        return graph
    nodes = [folded.get(id(n), n) for n in graph.nodes]
    read = {id(t) for n in nodes for t in n.inputs if t is not None} | {id(t) for t in graph.outputs}
    nodes = [n for n in nodes if n.op != "table_lookup" or any(id(t) in read for t in n.outputs)]
    return replace(graph, nodes=nodes)
