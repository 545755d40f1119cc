"""CONCATENATION in float32, int16, int32, int64 and bool: a byte copy through mote_concatenation_s8.

TFLite Micro's float concatenation copies slabs and takes no fused activation; the int8 kernel does
the same on the tensors' bytes when each input's chunk is counted in bytes.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.concat_plan import ConcatParams, inputs_of
from mote.ops.concat_plan import shape as concat_shape
from mote.ops.registry import CCall, Emitter, attr

BYTE_DTYPES = (DType.FLOAT32, DType.INT16, DType.INT32, DType.INT64, DType.BOOL)


def _bytes(em: Emitter, t: Tensor, const: bool = True) -> str:
    """The tensor as a pointer to its bytes."""
    return f"({'const ' if const else ''}int8_t *){em.tensor(t)}"


def check_concatenation(node: Node) -> None:
    if not node.inputs or len(node.outputs) != 1:
        raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; the op takes at "
                                "least one input and produces one output")
    out = node.outputs[0]
    checks.dtype(node, out, "output", *BYTE_DTYPES)
    for k, t in enumerate(node.inputs):
        if t is None:
            raise checks.fail(node, f"input {k} is missing")
        checks.dtype(node, t, f"input {k}", out.dtype)
    if attr(node, "activation") != "NONE":
        raise checks.fail(node, f"fused activation {attr(node, 'activation')} is not supported by TFLite Micro")
    if not isinstance(attr(node, "axis"), int):
        raise checks.fail(node, f"axis {attr(node, 'axis')!r} is not a whole number")


def prepare_concatenation(node: Node) -> ConcatParams:
    out_shape, axis = concat_shape(node)[0], attr(node, "axis")
    size = node.outputs[0].dtype.itemsize
    inner = int(np.prod(out_shape[axis + 1:], dtype=np.int64)) * size
    return ConcatParams(axis, int(np.prod(out_shape[:axis], dtype=np.int64)),
                        tuple(x.shape[axis] * inner for x in inputs_of(node)))


def reference_concatenation(node: Node, p: ConcatParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return [np.concatenate([np.asarray(x) for x in inputs], axis=p.axis)]


def emit_concatenation(node: Node, p: ConcatParams, em: Emitter) -> CCall:
    pointers = ", ".join(_bytes(em, x) for x in inputs_of(node))
    fields: dict[str, int | str] = {"num_inputs": len(p.chunks), "outer": p.outer,
                                    "chunks": em.const(np.array(p.chunks, dtype=np.int32), "concat_chunks")}
    return CCall("mote_concatenation_s8", "mote_concatenation_params", fields,
                 [f"(const int8_t *const[]){{{pointers}}}", _bytes(em, node.outputs[0], const=False)])
