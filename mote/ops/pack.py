"""PACK and UNPACK: tensors stacked along a new axis, and one tensor taken apart along an axis. Bytes are
copied as they are (TFLite Micro neither requantizes nor checks quantizations), through the byte kernels of
concatenation (mote_concatenation_s8) and of split (mote_split).

  pack    inputs [x0, x1, ...] of one shape; attrs values_count, axis in [-rank - 1, rank]
  unpack  inputs [x]; attrs num (= the axis extent), axis; outputs without that axis
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

DTYPES = {"pack": (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32, DType.INT64),
          "unpack": (DType.FLOAT32, DType.INT8, DType.INT16, DType.INT32)}


@dataclass(frozen=True)
class PackParams:
    axis: int  # non-negative: of the packed tensor
    outer: int  # product of the dimensions before the axis
    chunk: int  # bytes of one part per outer row


def _parts(node: Node) -> tuple[Tensor, int]:
    """A part's tensor (each input of pack, each output of unpack) and the axis, resolved and checked."""
    if node.op == "pack":
        if not node.inputs or len(node.outputs) != 1 or attr(node, "values_count") != len(node.inputs):
            raise checks.fail(node, f"values_count {attr(node, 'values_count')} does not match its "
                                    f"{len(node.inputs)} inputs, or the node has {len(node.outputs)} outputs")
        part = checks.present(node, 0, "input 0")
        rank = len(part.shape) + 1
    else:
        if len(node.inputs) != 1 or not node.outputs:
            raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; the op takes "
                                    "one input and produces one output per part")
        part = node.outputs[0]
        rank = len(part.shape) + 1
    axis = attr(node, "axis")
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise checks.fail(node, f"axis {axis!r} is out of range for a {rank}-D packed tensor")
    return part, axis % rank


def check(node: Node) -> None:
    part, axis = _parts(node)
    checks.dtype(node, part, "part 0", *DTYPES[node.op])
    for k, t in enumerate(node.inputs if node.op == "pack" else node.outputs):
        if t is None or t.shape != part.shape or t.dtype is not part.dtype:
            raise checks.fail(node, f"part {k} differs from part 0 in shape or dtype")
    whole = node.outputs[0] if node.op == "pack" else checks.present(node, 0, "input")
    checks.dtype(node, whole, "packed tensor", part.dtype)


def check_unpack(node: Node) -> None:
    check(node)
    x, (_, axis) = node.inputs[0], _parts(node)
    assert x is not None
    if x.shape[axis] != len(node.outputs) or attr(node, "num") != len(node.outputs):
        raise checks.fail(node, f"num {attr(node, 'num')} and the axis extent {x.shape[axis]} must both equal "
                                f"the {len(node.outputs)} outputs")


def shape(node: Node) -> list[tuple[int, ...]]:
    part, axis = _parts(node)
    if node.op == "pack":
        return [(*part.shape[:axis], len(node.inputs), *part.shape[axis:])]
    x = node.inputs[0]
    assert x is not None
    return [tuple(n for d, n in enumerate(x.shape) if d != axis)] * len(node.outputs)


def prepare(node: Node) -> PackParams:
    part, axis = _parts(node)
    return PackParams(axis, int(np.prod(part.shape[:axis], dtype=np.int64)),
                      int(np.prod(part.shape[axis:], dtype=np.int64)) * part.dtype.itemsize)


def reference(node: Node, p: PackParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if node.op == "pack":
        return [np.stack([np.asarray(x) for x in inputs], axis=p.axis)]
    return [np.take(np.asarray(inputs[0]), k, axis=p.axis) for k in range(len(node.outputs))]


def emit(node: Node, p: PackParams, em: Emitter) -> CCall:
    chunks = em.const(np.full(len(node.inputs) if node.op == "pack" else len(node.outputs), p.chunk, np.int32),
                      f"{node.op}_chunks")
    if node.op == "pack":
        pointers = ", ".join(f"(const int8_t *){em.tensor(x)}" for x in node.inputs if x is not None)
        return CCall("mote_concatenation_s8", "mote_concatenation_params",
                     {"num_inputs": len(node.inputs), "outer": p.outer, "chunks": chunks},
                     [f"(const int8_t *const[]){{{pointers}}}", f"(int8_t *){em.tensor(node.outputs[0])}"])
    x = node.inputs[0]
    assert x is not None
    pointers = ", ".join(em.tensor(t) for t in node.outputs)
    fields: dict[str, int | str] = {"num_outputs": len(node.outputs), "outer": p.outer, "chunks": chunks}
    return CCall("mote_split", "mote_split_params", fields, [em.tensor(x), f"(void *const[]){{{pointers}}}"])


register(OpDef("pack", shape, prepare, reference, emit, tflite=("PACK",), check=check,
               attrs={"values_count": 0, "axis": 0}, dtypes=DTYPES["pack"]))
register(OpDef("unpack", shape, prepare, reference, emit, tflite=("UNPACK",), check=check_unpack,
               attrs={"num": 0, "axis": 0}, dtypes=DTYPES["unpack"]))
