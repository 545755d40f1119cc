"""Shared helpers of the integer dialect (Deeploy's / QuantLib's exports): attributes, value types, activations.

The format as Deeploy's exporters write it:
- integers travel in float-typed tensors (weights, mul/add constants, inputs, outputs);
- attributes such as `div`, `n_levels`, `n_levels_out`, `signed`, `eps` may be stored as TENSORS (one-element
  float arrays) rather than ints/floats (`attr_int`, `attr_float`, `attr_bool` accept both);
- an activation's integer type is inferred as Deeploy's type inference does: graph inputs from their data,
  a RequantShift's (and the nonlinear ops') output from `signed` and `n_levels` / `n_levels_out`.

In mote an integer activation is an `Act` whose tensor is INT8 (values = stored - zero point: zero point 0 for
signed, -128 for unsigned 8-bit values [0, 255]) or INT32 (accumulators, zero point 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import Act
from mote.ir import DType, Quant

ACC = Quant((1.0,), (0,))  # int32 accumulators: the integers themselves
SIGNED8 = Quant((1.0,), (0,))
UNSIGNED8 = Quant((1.0,), (-128,))  # values [0, 255] stored as int8 [-128, 127]


def attr_array(attrs: dict[str, Any], name: str) -> np.ndarray | None:
    """An attribute as a float64 array, whether stored as an int, float, list or tensor; None when absent."""
    if name not in attrs:
        return None
    v = attrs[name]
    if hasattr(v, "raw_data") or hasattr(v, "float_data"):  # an onnx TensorProto the caller did not convert
        from onnx import numpy_helper

        v = numpy_helper.to_array(v)
    return np.asarray(v, np.float64)


def _scalar(ctx: Context, node: Any, attrs: dict[str, Any], name: str) -> float | None:
    a = attr_array(attrs, name)
    if a is None:
        return None
    if a.size != 1:
        raise UnsupportedError(f"{ctx.where(node)}: attribute {name!r} holds {a.size} values; one expected")
    return float(a.reshape(-1)[0])


def attr_float(ctx: Context, node: Any, attrs: dict[str, Any], name: str, default: float | None = None) -> float:
    v = _scalar(ctx, node, attrs, name)
    if v is None:
        if default is None:
            raise UnsupportedError(f"{ctx.where(node)}: attribute {name!r} is missing")
        return default
    return v


def attr_int(ctx: Context, node: Any, attrs: dict[str, Any], name: str, default: int | None = None) -> int:
    v = _scalar(ctx, node, attrs, name)
    if v is None:
        if default is None:
            raise UnsupportedError(f"{ctx.where(node)}: attribute {name!r} is missing")
        return default
    if v != round(v):
        raise UnsupportedError(f"{ctx.where(node)}: attribute {name!r} is {v:g}; an integer expected")
    return int(round(v))


def attr_bool(ctx: Context, node: Any, attrs: dict[str, Any], name: str, default: bool) -> bool:
    return bool(attr_int(ctx, node, attrs, name, int(default)))


@dataclass(frozen=True)
class IntType:
    """The integer values an activation holds: n_levels levels, signed ([-n/2, n/2 - 1]) or not ([0, n - 1])."""

    n_levels: int
    signed: bool

    @property
    def lo(self) -> int:
        return -(self.n_levels // 2) if self.signed else 0

    @property
    def hi(self) -> int:
        return self.n_levels // 2 - 1 if self.signed else self.n_levels - 1

    @property
    def quant(self) -> Quant:
        """How mote stores it when it fits 8 bits (zero point -128 for unsigned)."""
        return UNSIGNED8 if not self.signed and self.n_levels <= 256 else SIGNED8

    @property
    def fits_int8(self) -> bool:
        return self.n_levels <= 256


INT32 = IntType(2**32, True)


def output_type(ctx: Context, node: Any, attrs: dict[str, Any], default_levels: int = 256) -> IntType:
    """The output type a node declares with `signed` and `n_levels_out` (or `n_levels`)."""
    levels = attr_int(ctx, node, attrs, "n_levels_out", attr_int(ctx, node, attrs, "n_levels", default_levels))
    if levels < 2:
        raise UnsupportedError(f"{ctx.where(node)}: n_levels {levels}; at least 2 levels expected")
    return IntType(levels, attr_bool(ctx, node, attrs, "signed", True))


def int_type(act: Act) -> IntType:
    """The integer type of an activation, from its storage: int8 (signed, or unsigned by zero point -128),
    int32."""
    t = act.tensor
    if t.dtype is DType.INT8:
        zp = t.quant.zero_point[0] if t.quant is not None else 0
        return IntType(256, zp == 0)
    if t.dtype is DType.INT32:
        return INT32
    raise UnsupportedError(f"{t.name}: {t.dtype.value} values are not integers of the integer dialect")


def activation(ctx: Context, node: Any, i: int, int8: bool = True) -> Act:
    """The node's i-th input as an integer activation; `int8` asks for 8-bit values (not int32 accumulators)."""
    v = ctx.value(node, i)
    if not isinstance(v, Act):
        raise UnsupportedError(f"{ctx.where(node)}: input {i} must be a run-time activation")
    if v.tensor.dtype not in (DType.INT8, DType.INT32):
        raise UnsupportedError(f"{ctx.where(node)}: input {node.input[i]!r} is {v.tensor.dtype.value}; integers "
                               "expected")
    if int8 and v.tensor.dtype is not DType.INT8:
        raise UnsupportedError(f"{ctx.where(node)}: input {node.input[i]!r} holds int32 accumulators; it needs a "
                               "RequantShift to 8 bits first")
    if v.divisor != 1 and node.op_type != "RequantShift":
        raise UnsupportedError(f"{ctx.where(node)}: the AveragePool before it must be followed by RequantShift")
    return v


def integers(ctx: Context, node: Any, i: int, what: str, lo: int = -2**31, hi: int = 2**31 - 1) -> np.ndarray:
    """A constant input holding integers (float-typed in the file) as int64, checked against [lo, hi]."""
    data = np.asarray(ctx.const(node, i, what), np.float64)
    if not np.array_equal(data, np.round(data)) or data.min(initial=0) < lo or data.max(initial=0) > hi:
        raise UnsupportedError(f"{ctx.where(node)}: the {what} must hold integers in [{lo}, {hi}]")
    return data.astype(np.int64)
