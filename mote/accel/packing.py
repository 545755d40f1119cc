"""Sub-byte operands: the bit widths an accelerator's modes take, and the packed layout it reads them in.

An int8 tensor whose values fit in 4 or 2 signed bits carries `Tensor.bits` (mote.ir.tensor); the IR keeps
one value per int8. An accelerator that reads such weights packed declares it (`Accelerator.operand_bits()`,
an OperandBits); `lower` packs the weights at compile time with `pack_rows`, and its functional model
unpacks them with `unpack_rows`, bit-exactly.

The layout (ROWS_LSB_FIRST, the one both built-in accelerators declare): the array's last axis is packed;
each row (every index of the leading axes) starts on a byte boundary and takes ceil(count * bits / 8)
bytes, laid out as mote.ir.subbyte.pack lays out a flat array (TFLite's and ONNX's order: the first
element in a byte's lowest bits, each element its value's two's complement in `bits` bits). Rows are
packed here in one vectorized pass; a test checks each row against mote.ir.subbyte.pack. So a 4-bit row
[1, -2, 3] is the bytes 0xE1 0x03, and a 2-bit row [1, -1, 0, -2, 1] the bytes 0x8D 0x01. At 8 bits the
layout is the int8 array itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ints import ceil_div
from mote.ir.subbyte import WIDTHS, value_range

ROWS_LSB_FIRST = "rows-lsb-first"
__all__ = ["ROWS_LSB_FIRST", "WIDTHS", "OperandBits", "pack_rows", "row_bytes", "unpack_rows", "value_range"]


@dataclass(frozen=True)
class OperandBits:
    """The operand widths an accelerator's modes take. `weights`: of constant operands (a layer's
    filter); `activations`: of tensors in memory; `layout`: how sub-byte operands are packed."""

    weights: tuple[int, ...] = (8,)
    activations: tuple[int, ...] = (8,)
    layout: str = ROWS_LSB_FIRST


def row_bytes(count: int, bits: int) -> int:
    """Bytes of one packed row of `count` elements."""
    return ceil_div(count * bits, 8)


def pack_rows(values: np.ndarray, bits: int) -> np.ndarray:
    """`values` (int8, each within `bits` signed bits) packed along the last axis, as uint8 of shape
    [..., row_bytes(count, bits)] (module docstring)."""
    values = np.asarray(values)
    if bits == 8:
        return values.astype(np.int8).view(np.uint8)
    low, high = value_range(bits)
    if values.size and (values.min() < low or values.max() > high):
        raise ValueError(f"values outside [{low}, {high}] do not fit {bits} bits")
    per_byte = 8 // bits
    count = values.shape[-1]
    padded = np.zeros((*values.shape[:-1], row_bytes(count, bits) * per_byte), np.uint8)
    padded[..., :count] = values.astype(np.int64) & ((1 << bits) - 1)
    lanes = padded.reshape(*values.shape[:-1], -1, per_byte).astype(np.uint16)
    shifts = (np.arange(per_byte) * bits).astype(np.uint16)
    return np.bitwise_or.reduce(lanes << shifts, axis=-1).astype(np.uint8)


def unpack_rows(data: np.ndarray, count: int, bits: int) -> np.ndarray:
    """The int8 values of packed rows `data` (uint8 [..., row bytes]), `count` per row."""
    data = np.asarray(data, np.uint8)
    if bits == 8:
        return data[..., :count].view(np.int8)
    per_byte = 8 // bits
    shifts = (np.arange(per_byte) * bits).astype(np.uint8)
    fields = (data[..., None] >> shifts) & ((1 << bits) - 1)
    flat = fields.reshape(*data.shape[:-1], -1)[..., :count].astype(np.int16)
    return np.where(flat >= 1 << (bits - 1), flat - (1 << bits), flat).astype(np.int8)
