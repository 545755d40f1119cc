"""The inputs and outputs of an integer-dialect model, as Deeploy's test runner gives and checks them.

A test's `inputs.npz` holds one array per graph input, matched by POSITION (the archive's order; numpy's
`arr_0`, `arr_1`, ... or any other keys), in any container (int8, uint8, int64, float32 holding integers).
Arrays beyond the graph's inputs are ignored; an empty array stands for an empty tensor (a KV cache of
length 0); an array with fewer elements than the input is repeated to fill it (numpy's `tile`, as Deeploy's
runner does). Each input's integer type is inferred from its values, as Deeploy's runner does: the smallest
of uint8, int8 and (stored as int32) wider integers that holds them, unsigned first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mote.errors import MoteError
from mote.frontend.onnx.integer_values import INT32, IntType

# Deeploy's integer-dialect operators: a model with one of them is read as the integer dialect.
INTEGER_OPS = {"RequantShift", "IntegerMean", "iSoftmax", "ITAMax", "ITAPartialMax", "iLayerNorm", "iRMSNorm",
               "iGELU", "iHardswish", "iNoNorm", "IntegerDiv", "TrueIntegerDiv", "RQIntegerDiv", "RQSiGELU",
               "RQSiHardswish", "RequantizedAdd", "RequantizediGELU", "RequantizediHardswish"}


def integer_valued(a: np.ndarray) -> bool:
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return True
    if a.dtype.kind != "f":
        return False
    return bool(np.isfinite(a).all()) and bool((a == np.round(a)).all())


def infer_type(a: np.ndarray) -> IntType:
    """The integer type of an input's values as Deeploy's runner picks it, the narrowest first and unsigned
    before signed: uint8, int8, else (16 or 32 bits) stored as int32."""
    v = np.asarray(a, np.float64)
    lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)
    if lo >= 0 and hi <= 255:
        return IntType(256, False)
    if lo >= -128 and hi <= 127:
        return IntType(256, True)
    if lo < -2**31 or hi >= 2**31:
        raise MoteError(f"input values in [{lo:g}, {hi:g}] do not fit 32 bits")
    return INT32


def read_positional(path: Path) -> list[np.ndarray]:
    """The arrays of an .npz (in the archive's order) or of a .npy, read without pickles."""
    from mote.frontend.files import read_arrays

    loaded = read_arrays(path)
    return [loaded] if isinstance(loaded, np.ndarray) else list(loaded.values())


def fit_shape(a: np.ndarray, shape: tuple[int, ...], name: str, source: str) -> np.ndarray:
    """`a` as an input of `shape`: reshaped when the sizes agree, repeated when it divides the size."""
    flat = np.asarray(a).reshape(-1)
    size = math.prod(shape)
    if flat.size == size:
        return flat.reshape(shape)
    if flat.size and size % flat.size == 0:
        return np.tile(flat, size // flat.size).reshape(shape)
    raise MoteError(f"{source}: the array for input {name!r} has {flat.size} values; the input {list(shape)} needs "
                    f"{size} (or a divisor of it)")


def integer_arrays(arrays: Sequence[np.ndarray], names: Sequence[str], source: str) -> list[np.ndarray]:
    """The arrays for the graph's inputs `names`, by position, checked to hold integers."""
    if len(arrays) < len(names):
        raise MoteError(f"{source}: {len(arrays)} arrays for {len(names)} inputs {list(names)}; an integer-dialect "
                        "model takes its inputs by position")
    out = []
    for name, a in zip(names, arrays):
        if not integer_valued(a):
            raise MoteError(f"{source}: the array for input {name!r} does not hold integers; an integer-dialect "
                            "model takes integer values")
        out.append(np.asarray(a))
    return out
