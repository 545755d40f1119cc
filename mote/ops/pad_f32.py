"""PAD in float32, int32 and int16 (padded with zero bytes, which are 0.0 and 0): a byte copy through
mote_pad_s8.

TFLite Micro's float PAD writes 0.0, whose bytes are all zero, and its int16 PAD writes 0 whatever the zero
point: the int8 kernel pads the tensors' bytes
with the zero byte once the innermost dimension (and its leading pad) is widened by the element size.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.pad_plan import MAX_RANK, PadParams, merged, paddings
from mote.ops.pad_plan import shape as pad_shape
from mote.ops.registry import CCall, Emitter


def _bytes(em: Emitter, t: Tensor, const: bool = True) -> str:
    """The tensor as a pointer to its bytes."""
    return f"({'const ' if const else ''}int8_t *){em.tensor(t)}"


def check_pad(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.FLOAT32, DType.INT32, DType.INT16)  # padded with zero bytes
    pads = checks.present(node, 1, "paddings")
    checks.dtype(node, pads, "paddings", DType.INT32)
    checks.constant(node, pads, "paddings")
    checks.dtype(node, node.outputs[0], "output", x.dtype)


def prepare_pad(node: Node) -> PadParams:
    x = node.inputs[0]
    assert x is not None
    p = paddings(node)
    lead = MAX_RANK - len(x.shape)
    return PadParams((1,) * lead + tuple(x.shape), (1,) * lead + tuple(pad_shape(node)[0]),
                     (0,) * lead + tuple(int(b) for b in p[:, 0]), 0)


def reference_pad(node: Node, p: PadParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0]).reshape(p.in_shape)
    widths = [(b, o - n - b) for n, o, b in zip(p.in_shape, p.out_shape, p.before)]
    return [np.pad(x, widths, constant_values=0).reshape(node.outputs[0].shape)]


def emit_pad(node: Node, p: PadParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    size = x.dtype.itemsize
    p = merged(p)
    widen = (1,) * (MAX_RANK - 1) + (size,)
    in_shape, out_shape, before = ([n * w for n, w in zip(dims, widen)] for dims in (p.in_shape, p.out_shape,
                                                                                     p.before))
    fields: dict[str, int | str] = {
        "in_shape": em.const(np.array(in_shape, dtype=np.int32), "pad_in_shape"),
        "out_shape": em.const(np.array(out_shape, dtype=np.int32), "pad_out_shape"),
        "before": em.const(np.array(before, dtype=np.int32), "pad_before"), "pad_value": 0}
    return CCall("mote_pad_s8", "mote_pad_params", fields, [_bytes(em, x), _bytes(em, node.outputs[0], const=False)])
