"""RELU6: int8 or int16 clamp to [0, 6] in the input's quantization; no requantization.

Bit-exact with TFLite Micro's Relu6Quantized for int8 and int16: out = min(max(x, x_zp), six) with
    six = clamp(round(6.0f / s_in) + x_zp) to the type      (float32 division, round half away)
The output tensor's quantization is not used: TFLite Micro copies the clamped input values as they
are, i.e. it assumes the output is quantized like the input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import relu_f32
from mote.ops.checks import unary_int8, unary_int16
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register
from mote.quant import round_to_int32


@dataclass(frozen=True)
class Relu6Params:
    size: int
    lower: int  # the input zero point (real 0)
    upper: int  # real 6 in the input's quantization, clamped to the type


def check_s16(node: Node) -> None:
    unary_int16(node, zero_points=False)  # TFLite Micro's int16 RELU6 takes any zero point


def prepare(node: Node) -> Relu6Params:
    x = node.inputs[0]
    assert x is not None
    six = round_to_int32(float(np.float32(6.0) / np.float32(x.scale)), "the bound 6") + x.zero_point
    info = np.iinfo(x.dtype.np)
    return Relu6Params(x.size, x.zero_point, min(max(six, int(info.min)), int(info.max)))


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def reference(node: Node, p: Relu6Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], dtype=np.int64)
    return [np.where(x > p.upper, p.upper, np.where(x < p.lower, p.lower, x)).astype(node.outputs[0].dtype.np)]


def emit(node: Node, p: Relu6Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    func = "mote_relu6_s16" if x.dtype is DType.INT16 else "mote_relu6_s8"
    return CCall(func, "mote_relu6_params", dict(vars(p)), [em.tensor(x), em.tensor(node.outputs[0])])


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT8: (unary_int8, prepare, reference, emit),
            DType.INT16: (check_s16, prepare, reference, emit),
            DType.FLOAT32: (relu_f32.check, relu_f32.prepare, relu_f32.reference, relu_f32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("relu6", shape, _prepare, _reference, _emit, tflite=("RELU6",), check=_check,
                    dtypes=tuple(BY_DTYPE)))
