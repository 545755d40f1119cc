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


def nested_model() -> bytes:
    """A WHILE whose body runs an IF (frames within frames), and two IF layers in the main subgraph calling the
    same pair of branches (one subgraph function, called on two frames): float32 throughout.

    acc, i = x, 0; while i < n: acc = acc + acc if i < 2 else acc * 0.5; i += 1. Then y = twice(acc) if c, and
    z = twice(y) if c (twice: the then branch; the else branch passes its input through)."""
    mb = ModelBuilder()
    n, c = mb.tensor("n", [1], "int32"), mb.tensor("c", [1], "bool")
    x = mb.tensor("x", SHAPE, "float32")
    i0 = mb.tensor("i0", [1], "int32", data=np.zeros(1))
    i, acc = mb.tensor("i", [1], "int32"), mb.tensor("acc", SHAPE, "float32")
    y, z = mb.tensor("y", SHAPE, "float32"), mb.tensor("z", SHAPE, "float32")
    mb.op("WHILE", [i0, n, x], [i, mb.tensor("n_out", [1], "int32"), acc], cond_subgraph_index=1,
          body_subgraph_index=2)
    mb.op("IF", [c, acc], [y], then_subgraph_index=3, else_subgraph_index=4)
    mb.op("IF", [c, y], [z], then_subgraph_index=3, else_subgraph_index=4)

    def carried() -> list[int]:
        return [mb.tensor("i", [1], "int32"), mb.tensor("n", [1], "int32"), mb.tensor("acc", SHAPE, "float32")]

    mb.subgraph("cond")
    ci, cn, cacc = carried()
    more = mb.tensor("more", [1], "bool")
    mb.op("LESS", [ci, cn], [more])
    mb.io([ci, cn, cacc], [more])
    mb.subgraph("body")
    bi, bn, bacc = carried()
    one, two = mb.tensor("one", [1], "int32", data=np.ones(1)), mb.tensor("two", [1], "int32", data=np.array([2]))
    early, i_next = mb.tensor("early", [1], "bool"), mb.tensor("i_next", [1], "int32")
    acc_next = mb.tensor("acc_next", SHAPE, "float32")
    mb.op("LESS", [bi, two], [early])
    mb.op("IF", [early, bacc], [acc_next], then_subgraph_index=3, else_subgraph_index=5)
    mb.op("ADD", [bi, one], [i_next])
    mb.io([bi, bn, bacc], [i_next, bn, acc_next])
    mb.subgraph("twice")
    a, r = mb.tensor("a", SHAPE, "float32"), mb.tensor("r", SHAPE, "float32")
    mb.op("ADD", [a, a], [r])
    mb.io([a], [r])
    mb.subgraph("same")
    a = mb.tensor("a", SHAPE, "float32")
    mb.io([a], [a])
    mb.subgraph("half")
    a, r = mb.tensor("a", SHAPE, "float32"), mb.tensor("r", SHAPE, "float32")
    half = mb.tensor("half", [1], "float32", data=np.array([0.5]))
    mb.op("MUL", [a, half], [r])
    mb.io([a], [r])
    return mb.build([n, c, x], [i, z])


def bounded_while_model() -> bytes:
    """A WHILE whose trip count no constant's data decides (a fuzzing seed: editing buffers must not make it
    loop for ever): the counter starts at the extent of input v (SHAPE), steps by one (SHAPE of the counter)
    and stops at 3 (SHAPE of a constant of three values); each iteration reverses x."""
    mb = ModelBuilder()
    x = mb.tensor("x", [2, 3], "int8", scale=0.05, zero_point=3)
    v = mb.tensor("v", [1], "int32")
    i0, i, y = mb.tensor("i0", [1], "int32"), mb.tensor("i", [1], "int32"), mb.tensor("y", [2, 3], "int8",
                                                                                        scale=0.05, zero_point=3)
    mb.op("SHAPE", [v], [i0])
    mb.op("WHILE", [i0, x], [i, y], cond_subgraph_index=1, body_subgraph_index=2)
    mb.subgraph("cond")
    ci, cx = mb.tensor("i", [1], "int32"), mb.tensor("x", [2, 3], "int8", scale=0.05, zero_point=3)
    three = mb.tensor("three", [3], "int32", data=np.zeros(3))
    limit, more = mb.tensor("limit", [1], "int32"), mb.tensor("more", [1], "bool")
    mb.op("SHAPE", [three], [limit])
    mb.op("LESS", [ci, limit], [more])
    mb.io([ci, cx], [more])
    mb.subgraph("body")
    bi, bx = mb.tensor("i", [1], "int32"), mb.tensor("x", [2, 3], "int8", scale=0.05, zero_point=3)
    one, axis = mb.tensor("one", [1], "int32"), mb.tensor("axis", [1], "int32", data=np.array([1]))
    ni, nx = mb.tensor("i_next", [1], "int32"), mb.tensor("x_next", [2, 3], "int8", scale=0.05, zero_point=3)
    mb.op("SHAPE", [bi], [one])
    mb.op("ADD", [bi, one], [ni])
    mb.op("REVERSE_V2", [bx, axis], [nx])
    mb.io([bi, bx], [ni, nx])
    return mb.build([v, x], [i, y])
