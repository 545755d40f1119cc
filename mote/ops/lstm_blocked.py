"""The integer UNIDIRECTIONAL_SEQUENCE_LSTM on scalar cores: mote_lstm_s8's and mote_lstm_s16's arithmetic
(mote.ops.lstm_int) with the gates' fully connected products computed as mote's blocked fully connected
kernel computes its own. The four gates' weight rows (4 * units of them, TFLite's gate order) are taken
16 at a time, then 8 and 4 (4 * units is a multiple of 4), each block stored [depth][rows] so that the
kernel reads the rows' weights at fixed offsets and keeps the rows' sums in registers; each sum starts from
the FC's constant part (the bias plus the zero points times the weights' row sums, folded at compile time:
the input and hidden state are never padded). The gates' four sums of a row, its cell and hidden state are
computed row by row (the rows of a time-major step share nothing), in the scratch of one row.

mote_lstm_blocked_s8 (int8): two products per multiply (mote_pair_dot: inputs packed in pairs each step,
weights in pairs at compile time), which takes weights in [-127, 127]. Its int32 sums cannot overflow
(checked by mote.ops.lstm_int), so the order of the products does not matter: the same integers.
mote_lstm_blocked_s16 (16x8): int16 inputs times int8 weights, two inputs per step, in int32 sums where
TFLite Micro's are int64: taken when no sum can leave int32 (its constant part plus 32768 times the row's
absolute weights), which holds unless the biases are near the int32 range.
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node
from mote.ops.lstm_common import dims, state_args
from mote.ops.lstm_int import LstmIntParams, stage_fields
from mote.ops.registry import CCall, Core, Emitter, Kernel
from mote.quant import INT32_MAX


def block_widths(rows: int) -> list[int]:
    """The kernel's blocks of rows, in order (as its C chooses them)."""
    widths = []
    while rows > 0:
        widths.append(16 if rows >= 16 else 8 if rows >= 8 else 4)
        rows -= widths[-1]
    return widths


def blocked_rows(weights: np.ndarray) -> np.ndarray:
    """int8 [gates, units, depth] as the 16x8 kernel reads them: the 4 * units rows block by block, each block
    [depth][block rows]."""
    rows = weights.reshape(-1, weights.shape[-1])
    parts, start = [], 0
    for width in block_widths(rows.shape[0]):
        parts.append(rows[start:start + width].T.reshape(-1))
        start += width
    return np.ascontiguousarray(np.concatenate(parts).astype(np.int8))


def blocked(weights: np.ndarray) -> np.ndarray:
    """int8 [gates, units, depth] as the kernel reads them: int32 words w[2k] + w[2k + 1] * 2^16 (a zero
    after an odd depth), the 4 * units rows block by block, each block [pairs][block rows]."""
    rows = weights.reshape(-1, weights.shape[-1]).astype(np.int64)
    assert rows.shape[0] % 4 == 0
    if rows.shape[1] % 2:
        rows = np.concatenate([rows, np.zeros((rows.shape[0], 1), np.int64)], axis=1)
    words = rows[:, 0::2] + rows[:, 1::2] * 65536
    parts, start = [], 0
    for width in block_widths(words.shape[0]):
        parts.append(words[start:start + width].T.reshape(-1))
        start += width
    return np.ascontiguousarray(np.concatenate(parts).astype(np.int32))


def pack(node: Node, p: LstmIntParams, em: Emitter) -> CCall:
    fields = {**stage_fields(p, em), "input_weights": em.const(blocked(p.input_weights), "input_weights"),
              "recurrent_weights": em.const(blocked(p.recurrent_weights), "recurrent_weights"),
              "folded": em.const(p.folded, "folded")}
    return CCall("mote_lstm_blocked_s8", "mote_lstm_int_params", fields, state_args(node, em))


def scratch_bytes(node: Node, params: object) -> int:
    """One row's input and hidden state in pairs (int32 words), then its four int16 gates."""
    d = dims(node)
    return 4 * ((d.input_size + 1) // 2 + (d.units + 1) // 2) + 4 * d.units * 2


def accepts(node: Node, p: LstmIntParams) -> str | None:
    """The paired products take weights in [-127, 127] (what the converter writes)."""
    low = min(int(p.input_weights.min()), int(p.recurrent_weights.min()))
    return "a weight of -128 (the paired products take [-127, 127])" if low < -127 else None


def _worst_s16(p: LstmIntParams) -> int:
    """The largest magnitude a 16x8 int32 sum can reach: its constant part plus 32768 times the row's absolute
    weights (int16 inputs with zero point 0)."""
    rows = np.concatenate([np.abs(p.input_weights.astype(np.int64)).sum(axis=2),
                           np.abs(p.recurrent_weights.astype(np.int64)).sum(axis=2)])
    return int((np.abs(p.folded.astype(np.int64)) + 32768 * rows).max())


def accepts_s16(node: Node, p: LstmIntParams) -> str | None:
    return None if _worst_s16(p) <= INT32_MAX else "sums that may leave int32 (TFLite Micro's are int64)"


def pack_s16(node: Node, p: LstmIntParams, em: Emitter) -> CCall:
    fields = {**stage_fields(p, em), "input_weights": em.const(blocked_rows(p.input_weights), "input_weights"),
              "recurrent_weights": em.const(blocked_rows(p.recurrent_weights), "recurrent_weights"),
              "folded": em.const(p.folded.astype(np.int32), "folded")}
    return CCall("mote_lstm_blocked_s16", "mote_lstm_int_params", fields, state_args(node, em))


def scratch_bytes_s16(node: Node, params: object) -> int:
    """The four int16 gates of one row."""
    return 4 * dims(node).units * 2


KERNEL_S16 = Kernel("mote_lstm_blocked_s16", frozenset({Core.SCALAR}), pack_s16, accepts_s16,
                    scratch_bytes=scratch_bytes_s16, scratch_why="the four gates of one batch row",
                    dtypes=frozenset({DType.INT16}))
KERNEL = Kernel("mote_lstm_blocked_s8", frozenset({Core.SCALAR}), pack, accepts, scratch_bytes=scratch_bytes,
                scratch_why="one batch row's input and hidden state in pairs and its four gates",
                dtypes=frozenset({DType.INT8}))
