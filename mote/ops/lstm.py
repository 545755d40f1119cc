"""UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro runs it: the standard (Keras) LSTM cell over a sequence, its
hidden and cell state kept across calls. float32 here; int8 and 16x8 in mote.ops.lstm_int.

Inputs, TFLite's 24: x [batch, time, in] ([time, batch, in] when time_major); the input-to-gate weights of the
input, forget, cell and output gates [units, in] (1-4); the recurrent weights [units, units] (5-8); peepholes
(9-11); the gate biases [units] (12-15); projection weights and bias (16-17); the hidden (output) state and the
cell state, variable tensors of batch * units values (18, 19); layer-norm coefficients (20-23). TFLite Micro runs
the standard cell only: every weight and bias present, no peephole, projection or layer norm (it refuses them);
its only nonlinearity option is the cell gate's, and the converter writes TANH there (anything else stops the
interpreter). Each time step, for every row (all batches at once when time_major, else one batch at a time),
TFLite Micro computes, in this order:

  gate(g) = act(FC(x_t, W_g) + b_g  +  FC(h, R_g))     forget, input, cell (tanh), then output gate after step 2
  c = f * c;  c = c + i * g;  c = clip(c)              clip only when cell_clip > 0
  h = tanh(c) * o;  y_t = h

float32 keeps its order: each fully connected sum from 0 in the order of the inputs, then + bias (the recurrent
one + 0.0), each FC and each product clamped to the float range (an infinity becomes the largest float, as
ActivationFunctionWithMinMax does), the gate sum and the cell sum not; sigmoid with TFLite's cutoffs and tanh
from mote's own float functions (mote.ops.float_math), so results lie within a few ULP of TFLite Micro's, which
calls the C library (with the C library's functions in their place, the results are TFLite Micro's bit for
bit). The cell clip is std::max(std::min(clip, c), -clip). MACs: per step and row, 4 gates of
units * (in + units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.activation_f32 import LOGISTIC_LOWER, LOGISTIC_UPPER
from mote.ops.float_common import F32_MAX, accumulate_taps, c_float, clamp, float_data
from mote.ops.float_math import expf, tanhf
from mote.ops.lstm_blocked import KERNEL as KERNEL_BLOCKED_S8
from mote.ops.lstm_blocked import KERNEL_S16 as KERNEL_BLOCKED_S16
from mote.ops.lstm_common import (
    BIASES,
    CELL,
    HIDDEN,
    INPUT_WEIGHTS,
    RECURRENT_WEIGHTS,
    SCRATCH_WHY,
    Dims,
    check_common,
    dim_fields,
    dims,
    macs,
    scratch_bytes,
    shape,
    state_args,
    tensors,
)
from mote.ops.lstm_int import KERNEL_S8, KERNEL_S16, ROW_S8, ROW_S16
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, attr, dtype_columns, register

F32 = np.float32


@dataclass(frozen=True, eq=False)
class LstmF32Params:
    dims: Dims
    cell_clip: float  # 0: none
    input_weights: np.ndarray  # [4 gates, units, in], TFLite's gate order
    recurrent_weights: np.ndarray  # [4, units, units]
    bias: np.ndarray  # [4, units]


def check_f32(node: Node) -> None:
    check_common(node)
    weights = node.inputs[1]
    assert weights is not None
    if weights.dtype is not DType.FLOAT32:
        raise checks.fail(node, f"has float32 activations and {weights.dtype.value} weights (a hybrid LSTM, "
                                "asymmetric_quantize_inputs); TFLite Micro does not run it: quantize the model fully")
    for i in (*BIASES, HIDDEN, CELL):
        t = node.inputs[i]
        assert t is not None
        checks.dtype(node, t, "bias" if i < HIDDEN else "state", DType.FLOAT32)


def prepare_f32(node: Node) -> LstmF32Params:
    def stacked(indices: range) -> np.ndarray:
        return np.ascontiguousarray(np.stack([float_data(t) for t in tensors(node, indices)]), F32)

    return LstmF32Params(dims(node), float(attr(node, "cell_clip")), stacked(INPUT_WEIGHTS),
                         stacked(RECURRENT_WEIGHTS), stacked(BIASES))


def _fc(x: np.ndarray, w: np.ndarray, bias: np.ndarray | float) -> np.ndarray:
    """TFLite's float FullyConnected of rows x [rows, depth] by w [units, depth]: the sum in depth order, then
    + bias, clamped to the float range."""
    total = np.zeros((x.shape[0], w.shape[0]), F32)
    for k in range(x.shape[1]):
        total = accumulate_taps(total, x[:, k:k + 1] * w[:, k])
    return clamp(total + F32(bias) if np.isscalar(bias) else total + bias, -F32_MAX, F32_MAX)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        middle = (F32(1.0) / (F32(1.0) + expf(-x))).astype(F32)
    return np.where(x > LOGISTIC_UPPER, F32(1.0), np.where(x < LOGISTIC_LOWER, expf(x), middle)).astype(F32)


def _by_row(array: np.ndarray, d: Dims) -> np.ndarray:
    """[batches, steps, ...] view of a time-major or batch-major sequence."""
    return array.swapaxes(0, 1) if d.time_major else array


def reference_f32(node: Node, p: LstmF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = p.dims
    x = _by_row(np.asarray(inputs[0], F32), d)
    hidden, cell = inputs[HIDDEN], inputs[CELL]  # updated in place: the state carried to the next call
    h, c = hidden.reshape(d.batches, d.units).copy(), cell.reshape(d.batches, d.units).copy()
    out = np.zeros((d.batches, d.steps, d.units), F32)
    for t in range(d.steps):
        gates = [(_fc(x[:, t], p.input_weights[k], p.bias[k]) + _fc(h, p.recurrent_weights[k], 0.0)).astype(F32)
                 for k in range(4)]  # each from the state before this step
        f, i, g = _sigmoid(gates[1]), _sigmoid(gates[0]), tanhf(gates[2])
        c = (clamp(f * c, -F32_MAX, F32_MAX) + clamp(i * g, -F32_MAX, F32_MAX)).astype(F32)
        if p.cell_clip > 0:
            clip = F32(p.cell_clip)
            c = np.where(c < clip, c, clip)
            c = np.where(c < -clip, -clip, c).astype(F32)
        o = _sigmoid(gates[3])
        h = clamp(tanhf(c) * o, -F32_MAX, F32_MAX)
        out[:, t] = h
    hidden.reshape(-1)[:] = h.reshape(-1)
    cell.reshape(-1)[:] = c.reshape(-1)
    return [_by_row(out, d)]


def emit_f32(node: Node, p: LstmF32Params, em: Emitter) -> CCall:
    fields: dict[str, int | str] = {
        **dim_fields(p.dims), "cell_clip": c_float(p.cell_clip),
        "input_weights": em.const(p.input_weights, "input_weights"),
        "recurrent_weights": em.const(p.recurrent_weights, "recurrent_weights"), "bias": em.const(p.bias, "bias")}
    return CCall("mote_lstm_f32", "mote_lstm_f32_params", fields, state_args(node, em))


_BY_DTYPE = {DType.INT8: ROW_S8, DType.INT16: ROW_S16,
             DType.FLOAT32: (check_f32, prepare_f32, reference_f32, emit_f32)}
_check, _prepare, _reference, _emit = dtype_columns(_BY_DTYPE)

_KERNEL_F32 = Kernel("mote_lstm_f32", frozenset(Core), emit_f32, scratch_bytes=scratch_bytes, scratch_why=SCRATCH_WHY,
                     dtypes=frozenset({DType.FLOAT32}))

OP = register(OpDef("unidirectional_sequence_lstm", shape, _prepare, _reference, _emit, macs=macs,
                    kernels=(_KERNEL_F32, KERNEL_BLOCKED_S8, KERNEL_BLOCKED_S16, KERNEL_S8, KERNEL_S16),
                    tflite=("UNIDIRECTIONAL_SEQUENCE_LSTM",),
                    check=_check,
                    attrs={"activation": "NONE", "time_major": False, "cell_clip": 0.0, "proj_clip": 0.0,
                           "asymmetric_quantize_inputs": False},
                    dtypes=tuple(_BY_DTYPE)))
