"""Sub-byte operands: int4 and int2 values packed several to a byte, and back.

The IR keeps a sub-byte tensor one value per int8 (`Tensor.bits` says how many signed bits its values fit);
whoever stores it packed (a TFLite INT4 buffer, a CPU kernel's flash array, an accelerator's weight memory)
packs at compile time with `pack` and reads with `unpack`.

The layout is TFLite's (tensor_utils' UnpackDenseInt4IntoInt8 and UnpackDenseInt2IntoInt8) and ONNX's
(INT4/INT2 tensors): the values in order, the first in a byte's lowest bits: for 4 bits, value 2i is the low
nibble of byte i and value 2i + 1 its high nibble; for 2 bits, value 4i + k sits in bits 2k and 2k + 1 of
byte i. The last byte's unused high bits are zero. Each field holds the value in two's complement.
"""

from __future__ import annotations

import numpy as np

from mote.errors import UnsupportedError

WIDTHS = (8, 4, 2)  # the bit widths an int8 tensor's values may be declared to fit


def value_range(bits: int) -> tuple[int, int]:
    """The signed range of `bits` bits: (-2^(bits-1), 2^(bits-1) - 1)."""
    check_bits(bits, "value_range")
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def check_bits(bits: int, where: str) -> None:
    """Refuses a width other than 8, 4 or 2 in one line naming `where`."""
    if bits not in WIDTHS:
        raise UnsupportedError(f"{where}: a bit width of {bits} is not supported; use 8, 4 or 2")


def check_values(values: np.ndarray, bits: int, where: str) -> None:
    """Refuses values outside `bits` signed bits in one line naming `where` and the first value out of range."""
    low, high = value_range(bits)
    flat = np.asarray(values).reshape(-1)
    bad = np.flatnonzero((flat < low) | (flat > high))
    if bad.size:
        raise UnsupportedError(f"{where}: value {int(flat[bad[0]])} at flat index {int(bad[0])} does not fit "
                               f"{bits} signed bits [{low}, {high}]; requantize to that range or declare a wider "
                               "bit width")


def packed_size(count: int, bits: int) -> int:
    """The bytes `count` values of `bits` bits take packed."""
    per_byte = 8 // bits
    return (count + per_byte - 1) // per_byte


def pack(values: np.ndarray, bits: int, where: str = "pack") -> bytes:
    """`values` (any integer array, read in C order) as bytes, `8 // bits` values a byte, the first lowest.
    Values must fit `bits` signed bits (a one-line UnsupportedError otherwise)."""
    check_bits(bits, where)
    flat = np.asarray(values).reshape(-1).astype(np.int64)
    check_values(flat, bits, where)
    per_byte = 8 // bits
    fields = np.zeros(packed_size(flat.size, bits) * per_byte, np.uint16)
    fields[:flat.size] = flat & ((1 << bits) - 1)
    fields = fields.reshape(-1, per_byte)
    packed = np.zeros(fields.shape[0], np.uint16)
    for k in range(per_byte):
        packed |= fields[:, k] << (bits * k)
    return packed.astype(np.uint8).tobytes()


def unpack(data: bytes | np.ndarray, count: int, bits: int, where: str = "unpack") -> np.ndarray:
    """The first `count` values packed in `data` (as `pack` writes them), sign-extended, as int8."""
    check_bits(bits, where)
    raw = np.frombuffer(bytes(data), np.uint8) if not isinstance(data, np.ndarray) else data.view(np.uint8)
    if raw.size < packed_size(count, bits):
        raise UnsupportedError(f"{where}: {raw.size} bytes hold fewer than {count} values of {bits} bits "
                               f"({packed_size(count, bits)} bytes needed)")
    per_byte = 8 // bits
    shifts = np.arange(per_byte, dtype=np.uint8) * bits
    fields = (raw[:, None].astype(np.int16) >> shifts[None, :]) & ((1 << bits) - 1)
    signed = np.where(fields >= 1 << (bits - 1), fields - (1 << bits), fields)
    return signed.reshape(-1)[:count].astype(np.int8)
