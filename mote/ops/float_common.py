"""What the float32 ops share: TFLite's float activation ranges and clamp, checks, C literals.

TFLite Micro's float kernels end with ActivationFunctionWithMinMax(x, lo, hi), which is
std::min(std::max(x, lo), hi): x < lo gives lo, then hi < x gives hi, and a NaN passes through.
Without a fused activation the range is [lowest float, largest float], so an infinity becomes the
largest finite float (not kept as infinity).
"""

from __future__ import annotations

import numpy as np

from mote.ir import DType, Node, Tensor
from mote.ops import checks
from mote.ops.registry import attr

F32_MAX = float(np.finfo(np.float32).max)

FLOAT_RANGES = {"NONE": (-F32_MAX, F32_MAX), "RELU": (0.0, F32_MAX), "RELU6": (0.0, 6.0),
                "RELU_N1_TO_1": (-1.0, 1.0)}


def float_range(node: Node) -> tuple[float, float]:
    """The clamp range of the node's fused activation (TFLite's CalculateActivationRange for float)."""
    return FLOAT_RANGES[attr(node, "activation")]


def clamp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """ActivationFunctionWithMinMax in float32, NaN kept."""
    x = np.asarray(x, np.float32)
    x = np.where(x < np.float32(lo), np.float32(lo), x)
    return np.where(np.float32(hi) < x, np.float32(hi), x).astype(np.float32)


def c_float(value: float) -> str:
    """A float32 value as an exact C float literal (hexadecimal)."""
    return f"{float(np.float32(value)).hex()}f"


def float_activation(node: Node, t: Tensor | None, role: str) -> Tensor:
    """A float32 activation tensor (quantization, if any, is ignored as TFLite Micro ignores it)."""
    if t is None:
        raise checks.fail(node, f"the {role} is missing")
    checks.dtype(node, t, role, DType.FLOAT32)
    return t


def float_constant(node: Node, index: int, role: str, optional: bool = False) -> Tensor | None:
    """A constant float32 input (weights, bias); None when optional and absent."""
    t = node.inputs[index] if index < len(node.inputs) else None
    if t is None and optional:
        return None
    t = checks.present(node, index, role)
    checks.dtype(node, t, role, DType.FLOAT32)
    checks.constant(node, t, role)
    return t


def float_data(t: Tensor | None) -> np.ndarray | None:
    """A constant tensor's values as float32 (None for an absent tensor)."""
    if t is None:
        return None
    assert t.data is not None
    return np.asarray(t.data, np.float32).reshape(t.shape)


def unary_float(node: Node) -> None:
    """One float32 input and one float32 output of the same shape."""
    checks.input_count(node, 1)
    float_activation(node, node.inputs[0], "input")
    float_activation(node, node.outputs[0], "output")


def binary_float(node: Node) -> None:
    """Two float32 inputs (numpy broadcasting), one float32 output, a fused activation."""
    checks.input_count(node, 2)
    float_activation(node, node.inputs[0], "first input")
    float_activation(node, node.inputs[1], "second input")
    float_activation(node, node.outputs[0], "output")
    checks.activation(node)


def accumulate_taps(total: np.ndarray, products: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """total + products in float32, one tap of a reference kernel's loop (only where `valid`)."""
    added = (total + products).astype(np.float32)
    return added if valid is None else np.where(valid, added, total).astype(np.float32)
