"""Tensors: shape, dtype, quantization and (for constants) data."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np


class DType(Enum):
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    FLOAT32 = "float32"
    UINT8 = "uint8"  # at a model's boundary, and for ops that move bytes: legacy uint8 models compute in int8
    # (mote.frontend.tflite_uint8)
    INT64 = "int64"
    BOOL = "bool"

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.value)

    @property
    def itemsize(self) -> int:
        return self.np.itemsize

    @property
    def c_type(self) -> str:
        return {DType.FLOAT32: "float", DType.BOOL: "bool"}.get(self, f"{self.value}_t")


@dataclass(frozen=True)
class Quant:
    """Affine quantization: real = scale * (q - zero_point), per tensor or along `axis`."""

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int | None = None  # None: per-tensor

    @property
    def per_channel(self) -> bool:
        return self.axis is not None and len(self.scale) > 1


@dataclass(eq=False)
class Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: DType
    quant: Quant | None = None
    data: np.ndarray | None = field(default=None, repr=False)  # set for constants
    variable: bool = False  # state an op updates in place, kept across calls (TFLite's variable tensors)
    reset_byte: int | None = None  # state that resets to another byte than `reset_value`'s rule gives
    # Sub-byte operands: an int8 tensor whose values fit in this many signed bits (4 or 2). Values stay one per
    # int8 here; kernels and accelerators that want them packed pack them at compile time.
    bits: int = 8

    @property
    def is_const(self) -> bool:
        return self.data is not None

    @property
    def in_arena(self) -> bool:
        """Computed afresh on every call: an activation, neither a constant nor state."""
        return not self.is_const and not self.variable

    @property
    def reset_value(self) -> int:
        """The byte a variable tensor is filled with at reset: an int8 tensor's zero point, else 0
        (TFLite Micro's ResetVariableTensors), unless `reset_byte` says otherwise."""
        if self.reset_byte is not None:
            return self.reset_byte
        return self.zero_point if self.dtype is DType.INT8 and self.quant is not None else 0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def scale(self) -> float:
        assert self.quant is not None, f"tensor {self.name} is not quantized"
        return self.quant.scale[0]

    @property
    def zero_point(self) -> int:
        assert self.quant is not None, f"tensor {self.name} is not quantized"
        return self.quant.zero_point[0]
