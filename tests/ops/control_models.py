"""Control-flow and resource-variable models, written as the TensorFlow converter writes them: tf.cond as IF
with a then and an else subgraph, tf.while_loop as WHILE with a cond and a body subgraph (the loop-carried
tensors its inputs and outputs), a tf.Variable in a stateful model as VAR_HANDLE in the main subgraph and in a
CALL_ONCE init subgraph that assigns the initial value."""

from __future__ import annotations

import numpy as np

from mote.frontend.tflite_writer import ModelBuilder

SHAPE = [2, 5]


def _q(dtype: str, scale: float, zero_point: int) -> dict[str, object]:
    return {"scale": scale, "zero_point": zero_point} if dtype in ("int8", "int16") else {}


def if_model(dtype: str) -> bytes:
    """y = x + z when c, else x * z: both branches take (x, z) and give y."""
    mb = ModelBuilder()
    c = mb.tensor("c", [1], "bool")
    x = mb.tensor("x", SHAPE, dtype, **_q(dtype, 0.05, 3))
    z = mb.tensor("z", SHAPE, dtype, **_q(dtype, 0.04, -7))
    y = mb.tensor("y", SHAPE, dtype, **_q(dtype, 0.1, 2))
    mb.op("IF", [c, x, z], [y], then_subgraph_index=1, else_subgraph_index=2)
    for name, builtin in (("then", "ADD"), ("else", "MUL")):
        mb.subgraph(name)
        a = mb.tensor("a", SHAPE, dtype, **_q(dtype, 0.05, 3))
        b = mb.tensor("b", SHAPE, dtype, **_q(dtype, 0.04, -7))
        r = mb.tensor("r", SHAPE, dtype, **_q(dtype, 0.1, 2))
        mb.op(builtin, [a, b], [r])
        mb.io([a, b], [r])
    return mb.build([c, x, z], [y])


def while_model(dtype: str) -> bytes:
    """A counter loop: i = 0; while i < n: i += 1, acc = acc + x (x passed through unchanged). Outputs the
    count and the sum: the trip count is the input n."""
    mb = ModelBuilder()
    q = _q(dtype, 0.05, 3)
    n = mb.tensor("n", [1], "int32")
    x = mb.tensor("x", SHAPE, dtype, **q)
    i0 = mb.tensor("i0", [1], "int32", data=np.zeros(1))
    acc0 = mb.tensor("acc0", SHAPE, dtype, data=np.full(SHAPE, 3 if dtype == "int8" else 0.5), **q)
    outs = [mb.tensor("i", [1], "int32"), mb.tensor("n_out", [1], "int32"), mb.tensor("x_out", SHAPE, dtype, **q),
            mb.tensor("acc", SHAPE, dtype, **q)]
    mb.op("WHILE", [i0, n, x, acc0], outs, cond_subgraph_index=1, body_subgraph_index=2)

    def carried() -> list[int]:
        return [mb.tensor("i", [1], "int32"), mb.tensor("n", [1], "int32"), mb.tensor("x", SHAPE, dtype, **q),
                mb.tensor("acc", SHAPE, dtype, **q)]

    mb.subgraph("cond")
    ci, cn, cx, cacc = carried()
    more = mb.tensor("more", [1], "bool")
    mb.op("LESS", [ci, cn], [more])
    mb.io([ci, cn, cx, cacc], [more])
    mb.subgraph("body")
    bi, bn, bx, bacc = carried()
    one = mb.tensor("one", [1], "int32", data=np.ones(1))
    i_next = mb.tensor("i_next", [1], "int32")
    acc_next = mb.tensor("acc_next", SHAPE, dtype, **q)
    mb.op("ADD", [bi, one], [i_next])
    mb.op("ADD", [bacc, bx], [acc_next])
    mb.io([bi, bn, bx, bacc], [i_next, bn, bx, acc_next])
    return mb.build([n, x], [outs[0], outs[3]])


def stateful_model(dtype: str, initial: float = 2.0) -> bytes:
    """acc = acc + x on every call, y = the new acc; CALL_ONCE's init assigns acc its first value."""
    mb = ModelBuilder()
    q = _q(dtype, 0.05, 3)
    x = mb.tensor("x", SHAPE, dtype, **q)
    handle = mb.tensor("handle", [], "resource")
    old = mb.tensor("old", SHAPE, dtype, **q)
    y = mb.tensor("y", SHAPE, dtype, **q)
    mb.op("CALL_ONCE", [], [], init_subgraph_index=1)
    mb.op("VAR_HANDLE", [], [handle], container="", shared_name="acc")
    mb.op("READ_VARIABLE", [handle], [old])
    mb.op("ADD", [old, x], [y])
    mb.op("ASSIGN_VARIABLE", [handle, y], [])
    mb.subgraph("init")
    handle = mb.tensor("handle", [], "resource")
    value = np.full(SHAPE, initial if dtype == "float32" else int(initial / 0.05) + 3)
    start = mb.tensor("start", SHAPE, dtype, data=value, **q)
    mb.op("VAR_HANDLE", [], [handle], container="", shared_name="acc")
    mb.op("ASSIGN_VARIABLE", [handle, start], [])
    mb.io([], [])
    return mb.build([x], [y])


def counter_in_branch_model(dtype: str) -> bytes:
    """The variable lives in an IF's branches: when c, acc += x and y = acc; else y = acc, unchanged. Each branch
    names the variable with a VAR_HANDLE of its own, as the converter writes it."""
    mb = ModelBuilder()
    q = _q(dtype, 0.05, 3)
    c = mb.tensor("c", [1], "bool")
    x = mb.tensor("x", SHAPE, dtype, **q)
    y = mb.tensor("y", SHAPE, dtype, **q)
    mb.op("CALL_ONCE", [], [], init_subgraph_index=3)
    mb.op("IF", [c, x], [y], then_subgraph_index=1, else_subgraph_index=2)
    for name, adds in (("then", True), ("else", False)):
        mb.subgraph(name)
        a = mb.tensor("a", SHAPE, dtype, **q)
        handle = mb.tensor("handle", [], "resource")
        old = mb.tensor("old", SHAPE, dtype, **q)
        mb.op("VAR_HANDLE", [], [handle], container="", shared_name="acc")
        mb.op("READ_VARIABLE", [handle], [old])
        if adds:
            new = mb.tensor("new", SHAPE, dtype, **q)
            mb.op("ADD", [old, a], [new])
            mb.op("ASSIGN_VARIABLE", [handle, new], [])
            mb.io([a], [new])
        else:
            mb.io([a], [old])
    mb.subgraph("init")
    handle = mb.tensor("handle", [], "resource")
    start = mb.tensor("start", SHAPE, dtype, data=np.full(SHAPE, 1.5 if dtype == "float32" else 20), **q)
    mb.op("VAR_HANDLE", [], [handle], container="", shared_name="acc")
    mb.op("ASSIGN_VARIABLE", [handle, start], [])
    return mb.build([c, x], [y])
