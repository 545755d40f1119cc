"""The integer UNIDIRECTIONAL_SEQUENCE_LSTM of TFLite Micro (mote.ops.lstm describes the cell and computes float32):
int8 activations and hidden state with int32 biases, or int16 ones with int64 biases (16x8); int8 weights, an
int16 cell state. TFLite Micro reads no intermediate tensor: every gate's pre-activation is int16 at the fixed
scale 2^-12 (Q3.12) and every gate output int16 at 2^-15. Per step and row, as it computes them:

  FC(x, W_g) + b_g and FC(h, R_g): the integer FullyConnected (int32 sums for int8, int64 for 16x8) rescaled to
    2^-12 by x_scale * w_scale / 2^-12 (in double), clamped to int16; the two added and saturated to int16
  sigmoid and tanh: TFLite's int16 Logistic and Tanh on the sigmoid table (mote.ops.sigmoid_s16), multiplier 3
  c = sat16(rescale(f * c) + rescale(i * g)), each product rescaled (2^-15 * c_scale / c_scale, then
    2^-30 / c_scale) and clamped to int16; clipped to +-round_toward_zero(cell_clip / c_scale) when cell_clip > 0
  h = clamp(h_zero + rescale(tanh(c) * o)) by 2^-30 / h_scale, tanh(c) read at the cell scale's power of two
    (TFLite's CheckedLog2: (15 + log2(c_scale)) - 3 as the table's input shift)

The output is the hidden state of each step (its own quantization is not read). Weights must be per tensor with
zero point 0 (the converter writes them so; TFLite Micro's LSTM takes one multiplier per gate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
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
    scratch_bytes,
    state_args,
    tensors,
)
from mote.ops.output_stage import output_multipliers
from mote.ops.registry import CCall, Core, Emitter, Kernel, attr
from mote.ops.sigmoid_s16 import TABLE, log2_rounded, lookup
from mote.quant import (
    INT32_MAX,
    multiply_by_quantized_multiplier,
    multiply_by_quantized_multiplier_64,
    quantize_multiplier,
)

F32 = np.float32
GATE_SCALE = 2.0**-12  # Q3.12: the scale TFLite Micro gives every gate's fully connected output
GATE_OUTPUT_SCALE = 2.0**-15  # Q0.15: its sigmoid and tanh outputs


@dataclass(frozen=True, eq=False)
class LstmIntParams:
    dims: Dims
    wide: bool  # int16 activations and hidden state (16x8), int64 biases
    input_offset: int  # minus the input's zero point
    hidden_offset: int  # minus the hidden state's zero point
    gate_multipliers: np.ndarray  # int32 [8]: each gate's input FC, then each gate's recurrent FC (TFLite's order)
    gate_shifts: np.ndarray  # int32 [8]
    forget_multiplier: int  # f * c -> c
    forget_shift: int
    update_multiplier: int  # i * g -> c
    update_shift: int
    hidden_multiplier: int  # tanh(c) * o -> h
    hidden_shift: int
    hidden_zero_point: int
    hidden_min: int
    hidden_max: int
    cell_clip: int  # -1: none
    cell_tanh_multiplier: int
    cell_tanh_shift: int
    input_weights: np.ndarray  # int8 [4, units, in]
    recurrent_weights: np.ndarray  # int8 [4, units, units]
    bias: np.ndarray  # int32 or int64 [4, units]

    @property
    def folded(self) -> np.ndarray:
        """The C kernel's starting sums [8, units], each FC's constant part: a gate's bias plus the input offset
        times its weights' row sums, then the hidden offset times the recurrent rows' (the same integers in
        another order: the sums cannot leave int32, checked)."""
        inputs = self.bias.astype(np.int64) + self.input_offset * self.input_weights.astype(np.int64).sum(axis=2)
        recurrent = self.hidden_offset * self.recurrent_weights.astype(np.int64).sum(axis=2)
        return np.concatenate([inputs, recurrent]).astype(np.int64 if self.wide else np.int32)


def _check(node: Node, activation: DType, bias: DType) -> None:
    d = check_common(node)
    x, hidden, cell = node.inputs[0], node.inputs[HIDDEN], node.inputs[CELL]
    assert x is not None and hidden is not None and cell is not None
    for t, role in ((x, "input"), (hidden, "hidden state")):
        checks.quantized(node, t, role)
    for t in tensors(node, INPUT_WEIGHTS) + tensors(node, RECURRENT_WEIGHTS):
        checks.dtype(node, t, "weights", DType.INT8)
        checks.quantized(node, t, "weights")
        if t.zero_point != 0:
            raise checks.fail(node, f"the weights {t.name!r} have zero point {t.zero_point}; TFLite Micro's LSTM "
                                    "takes symmetric weights (zero point 0)")
    for t in tensors(node, BIASES):
        checks.dtype(node, t, "bias", bias)
    checks.dtype(node, cell, "cell state", DType.INT16)
    checks.quantized(node, cell, "cell state")
    if activation is DType.INT16 and (x.zero_point or hidden.zero_point):
        raise checks.fail(node, "int16 activations must have zero point 0 (symmetric), as TFLite Micro requires")
    power, _ = log2_rounded(cell.scale)
    if 12 + power > 14:
        raise checks.fail(node, f"the cell state scale {cell.scale:g} is too large for TFLite Micro's int16 tanh: "
                                "use at most 2^-1 (the converter picks a power of two that fits the cell's range)")
    if activation is DType.INT8:
        _check_sums(node, x, hidden, d)


def _check_sums(node: Node, x: Tensor, hidden: Tensor, d: Dims) -> None:
    """Refuse what could overflow TFLite Micro's int32 sums (undefined there too)."""
    for t, source, bias in zip(tensors(node, INPUT_WEIGHTS) + tensors(node, RECURRENT_WEIGHTS),
                               [x] * 4 + [hidden] * 4, tensors(node, BIASES) + [None] * 4):
        assert t.data is not None
        largest = 128 + abs(source.zero_point)  # |value - zero point| of an int8
        worst = np.abs(t.data.astype(np.int64)).sum(axis=1) * largest
        if bias is not None and bias.data is not None:
            worst = worst + np.abs(bias.data.astype(np.int64))
        if int(worst.max()) > INT32_MAX:
            raise checks.fail(node, f"the sums of the weights {t.name!r} may exceed int32 ({int(worst.max())}), "
                                    "where TFLite Micro's result is undefined")


def check_s8(node: Node) -> None:
    _check(node, DType.INT8, DType.INT32)


def check_s16(node: Node) -> None:
    _check(node, DType.INT16, DType.INT64)


def _ratio(*scales: float, over: float) -> float:
    """TFLite's multipliers: the float32 scales widened to double, multiplied, divided."""
    product = 1.0
    for s in scales:
        product *= float(F32(s))
    return product / float(F32(over))


def prepare(node: Node) -> LstmIntParams:
    d = dims(node)
    x, hidden, cell = node.inputs[0], node.inputs[HIDDEN], node.inputs[CELL]
    assert x is not None and hidden is not None and cell is not None
    wide = x.dtype is DType.INT16
    gates = [quantize_multiplier(_ratio(x.scale, w.scale, over=GATE_SCALE)) for w in tensors(node, INPUT_WEIGHTS)]
    gates += [quantize_multiplier(_ratio(hidden.scale, w.scale, over=GATE_SCALE))
              for w in tensors(node, RECURRENT_WEIGHTS)]
    forget = quantize_multiplier(_ratio(GATE_OUTPUT_SCALE, cell.scale, over=cell.scale))
    update = quantize_multiplier(_ratio(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, over=cell.scale))
    out = quantize_multiplier(_ratio(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, over=hidden.scale))
    clip = float(F32(attr(node, "cell_clip")))
    quantized_clip = int(min(max(clip / float(F32(cell.scale)), -32768.0), 32767.0)) if clip > 0 else -1
    power, _ = log2_rounded(cell.scale)
    left = 12 + power  # TFLite Micro's (15 + power) - 3; a negative one becomes a rounding right shift of 3 * x
    tanh_multiplier, tanh_shift = (3 << left, 0) if left >= 0 else (3, -left)
    info = np.iinfo(x.dtype.np)

    def stacked(indices: range, dtype: type[np.generic]) -> np.ndarray:
        return np.ascontiguousarray(np.stack([t.data for t in tensors(node, indices)]).astype(dtype))

    return LstmIntParams(
        d, wide, -x.zero_point, -hidden.zero_point, np.array([m for m, _ in gates], np.int32),
        np.array([s for _, s in gates], np.int32), *forget, *update, *out, hidden.zero_point, int(info.min),
        int(info.max), quantized_clip, tanh_multiplier, tanh_shift, stacked(INPUT_WEIGHTS, np.int8),
        stacked(RECURRENT_WEIGHTS, np.int8), stacked(BIASES, np.int64 if wide else np.int32))


def _saturate16(v: np.ndarray) -> np.ndarray:
    return np.clip(v, -32768, 32767)


def _fc(p: LstmIntParams, rows: np.ndarray, offset: int, w: np.ndarray, bias: np.ndarray | None,
        gate: int) -> np.ndarray:
    """TFLite's integer FullyConnected into the int16 gate scale."""
    acc = (rows + offset) @ w.astype(np.int64).T
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    m, s = int(p.gate_multipliers[gate]), int(p.gate_shifts[gate])
    if p.wide:
        return _saturate16(multiply_by_quantized_multiplier_64(acc, m, s))
    return _saturate16(multiply_by_quantized_multiplier(acc, m, s))


def _rescale(a: np.ndarray, b: np.ndarray, multiplier: int, shift: int) -> np.ndarray:
    return multiply_by_quantized_multiplier(a.astype(np.int64) * b.astype(np.int64), multiplier, shift)


def reference(node: Node, p: LstmIntParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = p.dims
    x = np.asarray(inputs[0], np.int64)
    x = x.swapaxes(0, 1) if d.time_major else x  # [batches, steps, in]
    hidden, cell = inputs[HIDDEN], inputs[CELL]  # updated in place: the state carried to the next call
    h = hidden.reshape(d.batches, d.units).astype(np.int64)
    c = cell.reshape(d.batches, d.units).astype(np.int64)
    out = np.zeros((d.batches, d.steps, d.units), np.int64)
    for t in range(d.steps):
        pre = [_saturate16(_fc(p, x[:, t], p.input_offset, p.input_weights[k], p.bias[k], k)
                           + _fc(p, h, p.hidden_offset, p.recurrent_weights[k], None, 4 + k)) for k in range(4)]
        i, f = lookup(pre[0], 3, 0, tanh=False), lookup(pre[1], 3, 0, tanh=False)
        g, o = lookup(pre[2], 3, 0, tanh=True), lookup(pre[3], 3, 0, tanh=False)
        kept = _saturate16(_rescale(f, c, p.forget_multiplier, p.forget_shift))
        c = _saturate16(kept + _saturate16(_rescale(i, g, p.update_multiplier, p.update_shift)))
        if p.cell_clip >= 0:
            c = np.maximum(np.minimum(p.cell_clip, c), -p.cell_clip)
        squashed = lookup(c, p.cell_tanh_multiplier, p.cell_tanh_shift, tanh=True)
        h = np.clip(p.hidden_zero_point + _rescale(squashed, o, p.hidden_multiplier, p.hidden_shift),
                    p.hidden_min, p.hidden_max)
        out[:, t] = h
    hidden.reshape(-1)[:] = h.reshape(-1)
    cell.reshape(-1)[:] = c.reshape(-1)
    return [out.swapaxes(0, 1) if d.time_major else out]


def stage_fields(p: LstmIntParams, em: Emitter) -> dict[str, int | str]:
    """The C params of both integer kernels but the weights and the constant sums (in each kernel's order)."""
    gate_left, gate_right = output_multipliers(p.gate_shifts)
    cell_shifts = np.array([p.forget_shift, p.update_shift, p.hidden_shift], np.int32)
    cell_left, cell_right = output_multipliers(cell_shifts)
    cell_multipliers = np.array([p.forget_multiplier, p.update_multiplier, p.hidden_multiplier], np.int32)
    return {
        **dim_fields(p.dims), "gate_multiplier": em.const(p.gate_multipliers, "gate_multiplier"),
        "gate_shift": em.const(p.gate_shifts, "gate_shift"), "gate_left_mul": em.const(gate_left, "gate_left_mul"),
        "gate_right_mul": em.const(gate_right, "gate_right_mul"),
        "cell_multiplier": em.const(cell_multipliers, "cell_multiplier"),
        "cell_left_mul": em.const(cell_left, "cell_left_mul"), "cell_right_mul": em.const(cell_right, "cell_right_mul"),
        "hidden_zero_point": p.hidden_zero_point, "hidden_min": p.hidden_min, "hidden_max": p.hidden_max,
        "cell_clip": p.cell_clip, "cell_tanh_multiplier": p.cell_tanh_multiplier,
        "cell_tanh_shift": p.cell_tanh_shift, "sigmoid_table": em.const(TABLE, "sigmoid_table")}


def emit(node: Node, p: LstmIntParams, em: Emitter) -> CCall:
    fields = {**stage_fields(p, em), "input_weights": em.const(p.input_weights, "input_weights"),
              "recurrent_weights": em.const(p.recurrent_weights, "recurrent_weights"),
              "folded": em.const(p.folded, "folded")}
    return CCall("mote_lstm_s16" if p.wide else "mote_lstm_s8", "mote_lstm_int_params", fields,
                 state_args(node, em))


ROW_S8 = (check_s8, prepare, reference, emit)
ROW_S16 = (check_s16, prepare, reference, emit)
KERNEL_S8 = Kernel("mote_lstm_s8", frozenset(Core), emit, scratch_bytes=scratch_bytes, scratch_why=SCRATCH_WHY,
                   dtypes=frozenset({DType.INT8}))
KERNEL_S16 = Kernel("mote_lstm_s16", frozenset(Core), emit, scratch_bytes=scratch_bytes, scratch_why=SCRATCH_WHY,
                    dtypes=frozenset({DType.INT16}))
