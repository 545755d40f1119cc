"""BROADCAST_ARGS: the broadcast of two runtime shape vectors (int32 or int64), as TFLite Micro computes it:
aligned from the end, a 1 takes the other's extent; two other differing extents make the C return
MOTE_ERROR (TFLite Micro aborts) and the reference raise. The interpreter reads each extent into an int, so
an int64 extent keeps its low 32 bits; so does mote. The output's length is known at compile time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register


@dataclass(frozen=True)
class BroadcastArgsParams:
    a_size: int
    b_size: int
    out_size: int
    wide: bool  # int64 shapes


def check(node: Node) -> None:
    checks.input_count(node, 2)
    a, b = checks.present(node, 0, "first shape"), checks.present(node, 1, "second shape")
    checks.dtype(node, a, "first shape", DType.INT32, DType.INT64)
    for t, role in ((b, "second shape"), (node.outputs[0], "output")):
        checks.dtype(node, t, role, a.dtype)
    for t, role in ((a, "first shape"), (b, "second shape"), (node.outputs[0], "output")):
        checks.rank(node, t, role, 1)
    if node.outputs[0].size != max(a.size, b.size):
        raise checks.fail(node, f"the output has {node.outputs[0].size} values; the broadcast shape has "
                                f"{max(a.size, b.size)}")


def shape(node: Node) -> list[tuple[int, ...]]:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return [(max(a.size, b.size),)]


def prepare(node: Node) -> BroadcastArgsParams:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    return BroadcastArgsParams(a.size, b.size, max(a.size, b.size), a.dtype is DType.INT64)


def reference(node: Node, p: BroadcastArgsParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = (np.concatenate([np.ones(p.out_size - n, np.int64),
                            np.asarray(v).reshape(-1).astype(np.int32).astype(np.int64)])
            for v, n in ((inputs[0], p.a_size), (inputs[1], p.b_size)))
    if np.any((a != b) & (a != 1) & (b != 1)):
        raise MoteError(f"node {node.name!r} (broadcast_args): shapes {a.tolist()} and {b.tolist()} do not broadcast; "
                        "TFLite Micro aborts the same way")
    return [np.where(a == 1, b, a).astype(node.outputs[0].dtype.np)]


def emit(node: Node, p: BroadcastArgsParams, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {"a_size": p.a_size, "b_size": p.b_size, "out_size": p.out_size,
                                    "wide": int(p.wide)}
    return CCall("mote_broadcast_args", "mote_broadcast_args_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


OP = register(OpDef("broadcast_args", shape, prepare, reference, emit, tflite=("BROADCAST_ARGS",), check=check,
                    dtypes=(DType.INT32, DType.INT64)))
