"""PAD: int8 constant padding with the output zero point (real 0), up to 5-D as TFLite Micro.

Input bytes are copied unchanged (TFLite Micro does not requantize, even if input and output
quantization differ) and every new element is the output zero point. The paddings must be a constant
int32 [rank, 2] tensor of non-negative (before, after) counts.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks, pad_f32
from mote.ops.add import quantized_int8
from mote.ops.pad_plan import MAX_RANK, PadParams, merged, paddings, shape
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register


def prepare(node: Node) -> PadParams:
    x, out = quantized_int8(node, node.inputs[0]), quantized_int8(node, node.outputs[0])
    p = paddings(node)
    lead = MAX_RANK - len(x.shape)
    out_shape = shape(node)[0]
    return PadParams((1,) * lead + tuple(x.shape), (1,) * lead + tuple(out_shape),
                     (0,) * lead + tuple(int(b) for b in p[:, 0]), out.zero_point)


def reference(node: Node, p: PadParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], dtype=np.int8).reshape(p.in_shape)
    widths = [(b, o - n - b) for n, o, b in zip(p.in_shape, p.out_shape, p.before)]
    out = np.pad(x, widths, constant_values=p.pad_value)
    return [out.reshape(node.outputs[0].shape)]


def emit(node: Node, p: PadParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    p = merged(p)
    fields: dict[str, int | str] = {
        "in_shape": em.const(np.array(p.in_shape, dtype=np.int32), "pad_in_shape"),
        "out_shape": em.const(np.array(p.out_shape, dtype=np.int32), "pad_out_shape"),
        "before": em.const(np.array(p.before, dtype=np.int32), "pad_before"),
        "pad_value": p.pad_value}
    return CCall("mote_pad_s8", "mote_pad_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def check(node: Node) -> None:
    checks.int8_with_int32_constant(node, "paddings")


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT8: (check, prepare, reference, emit),
            **dict.fromkeys((DType.FLOAT32, DType.INT32, DType.INT16),
                            (pad_f32.check_pad, pad_f32.prepare_pad, pad_f32.reference_pad, pad_f32.emit_pad))}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("pad", shape, _prepare, _reference, _emit, tflite=("PAD",), check=_check, dtypes=tuple(BY_DTYPE)))
