"""Sub-byte packing (mote.accel.packing): rows-lsb-first round-trips, its documented bytes, its checks."""

from __future__ import annotations

import numpy as np
import pytest

from mote.accel.packing import pack_rows, row_bytes, unpack_rows, value_range
from mote.ir import subbyte


@pytest.mark.parametrize("bits", [8, 4, 2])
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (2, 5, 9), (4, 16)])
def test_round_trip(bits: int, shape: tuple[int, ...]) -> None:
    low, high = value_range(bits)
    values = np.random.default_rng(bits * 100 + len(shape)).integers(low, high + 1, shape).astype(np.int8)
    packed = pack_rows(values, bits)
    assert packed.dtype == np.uint8 and packed.shape == (*shape[:-1], row_bytes(shape[-1], bits))
    assert np.array_equal(unpack_rows(packed, shape[-1], bits), values)


def test_the_documented_layout() -> None:
    """The module docstring's examples: the first element in the lowest bits, each row starting on a byte."""
    assert pack_rows(np.array([1, -2, 3], np.int8), 4).tolist() == [0xE1, 0x03]
    assert pack_rows(np.array([1, -1, 0, -2, 1], np.int8), 2).tolist() == [0x8D, 0x01]
    rows = pack_rows(np.array([[7, -8, 1], [-1, 0, 2]], np.int8), 4)
    assert rows.tolist() == [[0x87, 0x01], [0x0F, 0x02]]  # the second row starts on its own byte


@pytest.mark.parametrize("bits, value", [(4, 8), (4, -9), (2, 2), (2, -3)])
def test_values_that_do_not_fit_are_refused(bits: int, value: int) -> None:
    with pytest.raises(ValueError, match=f"do not fit {bits} bits"):
        pack_rows(np.array([0, value], np.int8), bits)


@pytest.mark.parametrize("bits", [4, 2])
def test_each_row_is_laid_out_as_the_ir_packs_a_flat_array(bits: int) -> None:
    low, high = value_range(bits)
    values = np.random.default_rng(bits).integers(low, high + 1, (5, 11)).astype(np.int8)
    rows = pack_rows(values, bits)
    assert all(rows[i].tobytes() == subbyte.pack(values[i], bits) for i in range(len(values)))
