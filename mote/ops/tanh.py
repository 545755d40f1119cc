"""TANH: int8 tanh in gemmlowp fixed point, with the input scaling of logistic.py.

Bit-exact with TFLite Micro's reference_integer_ops::Tanh for int8. With d = x - input_zero_point:
    d <= -radius -> -128;  d >= radius -> 127;  otherwise
    out = clamp(rdbypot(tanh(MultiplyByQuantizedMultiplier(d, multiplier, shift) as Q4.27), 24), -128, 127)
TFLite Micro checks nothing about the output quantization and assumes scale 1/128, zero point 0;
mote does the same (the output quantization is not used).
"""

from __future__ import annotations

import numpy as np

from mote import fixedpoint as fp
from mote.ir import DType, Node
from mote.ops import activation_f32 as f32
from mote.ops import sigmoid_s16
from mote.ops.checks import unary_int8
from mote.ops.logistic import INPUT_INTEGER_BITS, SigmoidParams, input_in_q4, shape, sigmoid_call, sigmoid_params
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register
from mote.quant import rounding_divide_by_pot


def reference(node: Node, p: SigmoidParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    q4, low, high = input_in_q4(p, inputs[0])
    out = np.clip(rounding_divide_by_pot(fp.tanh(q4, INPUT_INTEGER_BITS), 31 - 7), -128, 127)
    return [np.where(low, -128, np.where(high, 127, out)).astype(np.int8)]


def emit(node: Node, p: SigmoidParams, em: Emitter) -> CCall:
    return sigmoid_call("mote_tanh_s8", node, p, em)


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT16: sigmoid_s16.ROW, DType.INT8: (unary_int8, sigmoid_params, reference, emit),
            DType.FLOAT32: (f32.check, f32.prepare, f32.tanh_reference, f32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("tanh", shape, _prepare, _reference, _emit, tflite=("TANH",), check=_check, dtypes=tuple(BY_DTYPE)))
