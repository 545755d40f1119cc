"""RELU: int8 or int16 max(x, 0), requantized from the input to the output quantization.

Bit-exact with TFLite Micro's ReluQuantized for int8 and int16 (whose zero points must be 0):
    out = clamp(MultiplyByQuantizedMultiplier(x - x_zp, multiplier, shift) + out_zp, max(out_zp, min), max)
where min and max are the type's limits,
with (multiplier, shift) = QuantizeMultiplier(double(float(s_in / s_out))): the scale ratio is divided
in float32, then widened.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import relu_f32
from mote.ops.checks import unary_int8, unary_int16
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier


@dataclass(frozen=True)
class ReluParams:
    size: int
    input_zero_point: int
    output_zero_point: int
    multiplier: int  # Q31
    shift: int  # > 0: left
    act_min: int
    act_max: int


def prepare(node: Node) -> ReluParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    multiplier, shift = quantize_multiplier(float(np.float32(x.scale) / np.float32(out.scale)))
    # TFLite quantizes the bounds 0 and +inf: roundf(0 / s_out) is 0, and +inf means no upper bound.
    info = np.iinfo(out.dtype.np)
    return ReluParams(x.size, x.zero_point, out.zero_point, multiplier, shift, max(int(info.min), out.zero_point),
                      int(info.max))


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def reference(node: Node, p: ReluParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = np.asarray(inputs[0], dtype=np.int64) - p.input_zero_point
    out = multiply_by_quantized_multiplier(d, p.multiplier, p.shift) + p.output_zero_point
    return [np.clip(out, p.act_min, p.act_max).astype(node.outputs[0].dtype.np)]


def emit(node: Node, p: ReluParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    func = "mote_relu_s16" if x.dtype is DType.INT16 else "mote_relu_s8"
    return CCall(func, "mote_relu_params", dict(vars(p)), [em.tensor(x), em.tensor(node.outputs[0])])


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT8: (unary_int8, prepare, reference, emit), DType.INT16: (unary_int16, prepare, reference, emit),
            DType.FLOAT32: (relu_f32.check, relu_f32.prepare, relu_f32.reference, relu_f32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("relu", shape, _prepare, _reference, _emit, tflite=("RELU",), check=_check, dtypes=tuple(BY_DTYPE)))
