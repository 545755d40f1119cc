"""GATHER_ND and EMBEDDING_LOOKUP: copies addressed by runtime int32 indices, as TFLite Micro makes them.

  gather_nd         inputs [params, indices [..., nd]]: out[i...] = params[indices[i..., 0], ..., indices[i..., nd-1],
                    ...]. TFLite Micro checks only that the flat position of a slice lies in params (an index
                    past its own dimension but inside the tensor is taken); so does mote.
  embedding_lookup  inputs [ids (1-D), table]: out[i] = table[ids[i]] (rows checked against the table); an
                    int8 table with a float32 output is dequantized, float(q) * scale (zero point 0).
An index out of range makes the C return MOTE_ERROR, as the interpreter fails, and the reference raise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import MoteError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, register

MAX_ND = 5  # MOTE_GATHER_ND_MAX: TFLite Micro's MAX_INDICES_ND


@dataclass(frozen=True, eq=False)
class LookupParams:
    slices: int  # gather_nd: index tuples; embedding_lookup: ids
    slice_size: int  # elements per copied slice (a table row)
    flat_size: int  # elements of params (the table)
    counts: tuple[int, ...] = ()  # gather_nd: elements per step of each indexed dimension
    element_bytes: int = 1
    scale: float = 0.0  # embedding_lookup from int8 to float32: the table's scale; else 0


def check_gather_nd(node: Node) -> None:
    checks.input_count(node, 2)
    x, idx = checks.present(node, 0, "params"), checks.present(node, 1, "indices")
    checks.dtype(node, x, "params", DType.FLOAT32, DType.INT8)
    checks.dtype(node, idx, "indices", DType.INT32)
    checks.dtype(node, node.outputs[0], "output", x.dtype)
    if not x.shape or not idx.shape or not 1 <= idx.shape[-1] <= min(len(x.shape), MAX_ND):
        raise checks.fail(node, f"indices {list(idx.shape)} do not index params {list(x.shape)} (their last "
                                f"dimension must be 1 to {min(len(x.shape), MAX_ND)})")


def check_embedding_lookup(node: Node) -> None:
    checks.input_count(node, 2)
    ids, table = checks.present(node, 0, "ids"), checks.present(node, 1, "table")
    checks.dtype(node, ids, "ids", DType.INT32)
    checks.rank(node, ids, "ids", 1)
    checks.dtype(node, table, "table", DType.FLOAT32, DType.INT8)
    if len(table.shape) < 2:
        raise checks.fail(node, f"the table {table.name!r} is {len(table.shape)}-D; it needs at least 2 dimensions")
    out = node.outputs[0]
    checks.dtype(node, out, "output", *((DType.FLOAT32, DType.INT8) if table.dtype is DType.INT8 else (DType.FLOAT32,)))
    if table.dtype is DType.INT8 and out.dtype is DType.FLOAT32:
        checks.quantized(node, table, "table")
        if table.zero_point != 0:
            raise checks.fail(node, f"the int8 table {table.name!r} has zero point {table.zero_point}; TFLite Micro's "
                                    "dequantizing lookup needs 0")


def shape(node: Node) -> list[tuple[int, ...]]:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    if node.op == "gather_nd":
        return [(*b.shape[:-1], *a.shape[b.shape[-1]:])]
    return [(a.shape[0], *b.shape[1:])]


def prepare(node: Node) -> LookupParams:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert a is not None and b is not None
    if node.op == "gather_nd":
        nd = b.shape[-1]
        counts = tuple(int(np.prod(a.shape[d + 1:])) for d in range(nd))
        return LookupParams(b.size // nd, int(np.prod(a.shape[nd:])), a.size, counts, a.dtype.itemsize)
    hybrid = b.dtype is DType.INT8 and out.dtype is DType.FLOAT32
    return LookupParams(a.size, b.size // b.shape[0], b.size, (), b.dtype.itemsize,
                        float(np.float32(b.scale)) if hybrid else 0.0)


def reference(node: Node, p: LookupParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if node.op == "gather_nd":
        data, idx = np.asarray(inputs[0]).reshape(-1), np.asarray(inputs[1], np.int64)
        starts = idx.reshape(p.slices, -1) @ np.array(p.counts, np.int64)
    else:
        idx, data = np.asarray(inputs[0], np.int64), np.asarray(inputs[1]).reshape(-1)
        rows = p.flat_size // p.slice_size
        starts = np.where((idx >= 0) & (idx < rows), idx * p.slice_size, -1).reshape(-1)
    if np.any(starts < 0) or np.any(starts + p.slice_size > p.flat_size):
        raise MoteError(f"node {node.name!r} ({node.op}): an index is out of range; TFLite Micro fails the same way")
    rows = data[starts[:, None] + np.arange(p.slice_size)]
    if p.scale:
        rows = (rows.astype(np.float32) * np.float32(p.scale)).astype(np.float32)
    return [rows.astype(node.outputs[0].dtype.np).reshape(node.outputs[0].shape)]


def emit(node: Node, p: LookupParams, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {"slices": p.slices, "slice_size": p.slice_size, "flat_size": p.flat_size,
                                    "element_bytes": p.element_bytes}
    if node.op == "gather_nd":
        fields.update(nd=len(p.counts), counts=em.const(np.array(p.counts, np.int32), "gather_nd_counts"))
        return CCall("mote_gather_nd", "mote_gather_nd_params", fields,
                     [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])
    fields["scale"] = f"{float(np.float32(p.scale)).hex()}f"
    return CCall("mote_embedding_lookup", "mote_embedding_lookup_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


register(OpDef("gather_nd", shape, prepare, reference, emit, tflite=("GATHER_ND",), check=check_gather_nd,
               dtypes=(DType.INT8, DType.FLOAT32)))
register(OpDef("embedding_lookup", shape, prepare, reference, emit, tflite=("EMBEDDING_LOOKUP",),
               check=check_embedding_lookup, dtypes=(DType.INT8, DType.FLOAT32)))
