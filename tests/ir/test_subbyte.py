"""Sub-byte packing against ONNX's own INT4/INT2 packing (onnx.helper.make_tensor writes the packed bytes)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from mote.errors import MoteError
from mote.ir import subbyte


@pytest.mark.parametrize(("bits", "onnx_type"), [(4, TensorProto.INT4), (2, TensorProto.INT2)])
@pytest.mark.parametrize("count", [1, 2, 3, 5, 8, 33])
def test_pack_matches_onnx(bits: int, onnx_type: int, count: int) -> None:
    low, high = subbyte.value_range(bits)
    values = np.random.default_rng(count + bits).integers(low, high + 1, count)
    proto = helper.make_tensor("w", onnx_type, [count], values.tolist())
    onnx_bytes = bytes(np.array(proto.int32_data, np.uint8))
    assert subbyte.pack(values, bits) == onnx_bytes
    assert len(onnx_bytes) == subbyte.packed_size(count, bits)
    np.testing.assert_array_equal(subbyte.unpack(onnx_bytes, count, bits), values)
    np.testing.assert_array_equal(numpy_helper.to_array(proto).astype(np.int64), values)


def test_int4_nibble_order() -> None:
    # the first value in the low nibble (TFLite's UnpackDenseInt4IntoInt8: {0x12, 0x34} -> 2, 1, 4, 3)
    np.testing.assert_array_equal(subbyte.unpack(b"\x12\x34", 4, 4), [2, 1, 4, 3])
    assert subbyte.pack([2, 1, 4, 3], 4) == b"\x12\x34"


def test_out_of_range_value_is_one_line() -> None:
    with pytest.raises(MoteError, match=r"value 8 at flat index 1 does not fit 4 signed bits \[-8, 7\]") as info:
        subbyte.pack(np.array([0, 8]), 4, "tensor 'w'")
    assert "\n" not in str(info.value)
    with pytest.raises(MoteError, match="value -3 at flat index 0 does not fit 2 signed bits"):
        subbyte.pack(np.array([-3]), 2)


def test_bad_width_is_one_line() -> None:
    with pytest.raises(MoteError, match="a bit width of 3 is not supported; use 8, 4 or 2"):
        subbyte.pack(np.array([0]), 3)
    with pytest.raises(MoteError, match="fewer than 5 values"):
        subbyte.unpack(b"\x00", 5, 4)
