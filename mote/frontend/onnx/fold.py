"""Constant folding of ONNX nodes whose inputs are all constant (shape arithmetic, weight preprocessing),
with ONNX's reference evaluator, under a budget.

A model is untrusted input: ConstantOfShape([2**40]) or Tile / Expand / Range with huge arguments would
allocate without end, and a Loop with a huge trip count would run forever. Only operators whose result
size can be computed from the inputs beforehand are folded, the result must stay below MAX_ELEMENTS, the
multiply-adds of a constant MatMul / Gemm below MAX_WORK, and control flow is never evaluated.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import Const, Value

MAX_ELEMENTS = 1 << 24  # of any folded input or result (16 Mi)
MAX_WORK = 1 << 28  # multiply-adds of a folded MatMul / Gemm

# The result has as many elements as the first input.
_SAME_SIZE = {"Abs", "Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Floor", "Ceil", "Round", "Sign", "Not", "Cast",
              "CastLike", "Identity", "Relu", "Sigmoid", "Tanh", "Erf", "Clip", "Softmax", "LogSoftmax", "IsNaN",
              "IsInf", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Dropout", "QuantizeLinear",
              "LeakyRelu", "HardSigmoid", "Elu", "Selu", "Softplus", "Sin", "Cos", "CumSum", "Trilu", "BitwiseNot",
              "ScatterND", "ScatterElements", "EyeLike", "Shrink", "HardSwish", "PRelu"}
# The result has the broadcast shape of the inputs.
_BROADCAST = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Where", "Equal", "Less",
              "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr",
              "BitwiseXor"}
# The result is no larger than the inputs together.
_NO_LARGER = {"Slice", "Concat", "Split", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
              "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin",
              "GatherElements", "Size"}


def foldable(node: Any, inputs: list[Value | None]) -> bool:
    """All inputs constant: evaluate at compile time (shape arithmetic, weight preprocessing)."""
    if node.op_type in ("DequantizeLinear", "Constant"):
        return False  # keeps the integers and their scale (QConst) / has its own handler
    return all(v is None or isinstance(v, Const) for v in inputs) and bool(node.input)


def fold(ctx: Context, node: Any, inputs: list[Value | None]) -> list[Value | None]:
    """The node's outputs, evaluated; UnsupportedError when the operator or its size is outside the budget."""
    from onnx.reference import ReferenceEvaluator

    where = ctx.where(node)
    arrays = [v.data if isinstance(v, Const) else None for v in inputs]
    for name, a in zip(node.input, arrays):
        if a is not None and a.size > MAX_ELEMENTS:
            raise UnsupportedError(f"{where}: constant input {name!r} has {a.size} elements; mote evaluates "
                                   f"constant expressions up to {MAX_ELEMENTS}")
    size = result_size(node, arrays)
    if size is None:
        raise UnsupportedError(f"{where}: mote does not evaluate {node.op_type} on constants at compile time; "
                               "fold it in the exporter (e.g. onnxsim) or feed it a run-time tensor")
    if size > MAX_ELEMENTS:
        raise UnsupportedError(f"{where}: this constant expression would make {size} elements; mote evaluates "
                               f"constant expressions up to {MAX_ELEMENTS}")
    feeds = {name: a for name, a in zip(node.input, arrays) if name and a is not None}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            evaluator = ReferenceEvaluator(node, opsets={"": ctx.opsets.get("", 13)})
            results = evaluator.run(None, feeds)
    except Exception as e:  # the reference evaluator raises many kinds, with multi-line messages
        detail = " ".join(str(e).split())[:160] or type(e).__name__
        raise UnsupportedError(f"{where}: cannot evaluate this constant expression ({detail})") from None
    return [Const(np.asarray(r)) for r in results]


def result_size(node: Any, arrays: list[np.ndarray | None]) -> int | None:
    """An upper bound on the elements of the node's largest output, computed without evaluating it; None when
    mote does not know the operator's size rule (it is then not folded)."""
    op = node.op_type
    given = [a for a in arrays if a is not None]
    if not given:
        return None
    if op in _SAME_SIZE:
        return given[0].size
    if op in _BROADCAST:
        return _broadcast_size([a.shape for a in given])
    if op in _NO_LARGER:
        return sum(a.size for a in given)
    if op == "Shape":
        return given[0].ndim
    if op == "NonZero":
        return given[0].ndim * given[0].size
    rule = _SIZE_RULES.get(op)
    return None if rule is None else rule(node, arrays)


def _broadcast_size(shapes: list[tuple[int, ...]]) -> int:
    try:
        return math.prod(np.broadcast_shapes(*shapes))
    except ValueError:
        return max(math.prod(s) for s in shapes)  # the evaluator reports the mismatch


def _ints(a: np.ndarray | None) -> list[int]:
    """A shape-like constant as Python integers (exact for int64; floats truncated)."""
    if a is None:
        return []
    return [int(v) for v in np.asarray(a).reshape(-1)[:64]] if np.asarray(a).dtype.kind in "iub" else \
        [int(v) if np.isfinite(v) else 1 << 62 for v in np.asarray(a, np.float64).reshape(-1)[:64]]


def _arg(arrays: list[np.ndarray | None], i: int) -> np.ndarray | None:
    return arrays[i] if i < len(arrays) else None


def _constant_of_shape(node: Any, arrays: list[np.ndarray | None]) -> int:
    return math.prod(max(d, 0) for d in _ints(arrays[0]))


def _expand(node: Any, arrays: list[np.ndarray | None]) -> int:
    data, shape = arrays[0], _ints(_arg(arrays, 1))
    rank = max(len(shape), data.ndim if data is not None else 0)
    a = [1] * (rank - (data.ndim if data is not None else 0)) + list(data.shape if data is not None else ())
    b = [1] * (rank - len(shape)) + shape
    return math.prod(max(x, abs(y)) for x, y in zip(a, b))


def _tile(node: Any, arrays: list[np.ndarray | None]) -> int:
    data, repeats = arrays[0], _ints(_arg(arrays, 1))
    return (data.size if data is not None else 1) * math.prod(max(r, 0) for r in repeats)


def _range(node: Any, arrays: list[np.ndarray | None]) -> int | None:
    try:
        start, limit, delta = (float(np.asarray(a).reshape(-1)[0]) for a in arrays[:3])  # type: ignore[union-attr]
    except (TypeError, IndexError, ValueError):
        return None
    if not all(map(math.isfinite, (start, limit, delta))) or delta == 0:
        return None
    return max(math.ceil((limit - start) / delta), 0)


def _pad(node: Any, arrays: list[np.ndarray | None]) -> int:
    data = arrays[0]
    pads = _ints(_arg(arrays, 1)) or [int(p) for p in _attribute(node, "pads", [])]
    if data is None:
        return 0
    r = data.ndim
    extra = pads + [0] * (2 * r - len(pads))
    return math.prod(max(d + abs(extra[i]) + abs(extra[i + r]), 0) for i, d in enumerate(data.shape))


def _gather(node: Any, arrays: list[np.ndarray | None]) -> int:
    data, indices = arrays[0], _arg(arrays, 1)
    if data is None or indices is None or data.ndim == 0:
        return 0
    axis = int(_attribute(node, "axis", 0)) % data.ndim
    return indices.size * math.prod(d for i, d in enumerate(data.shape) if i != axis)


def _one_hot(node: Any, arrays: list[np.ndarray | None]) -> int:
    indices, depth = arrays[0], _ints(_arg(arrays, 1))
    return (indices.size if indices is not None else 0) * max(depth[:1] or [0])


def _matmul(node: Any, arrays: list[np.ndarray | None]) -> int | None:
    a, b = arrays[0], _arg(arrays, 1)
    if a is None or b is None or a.ndim == 0 or b.ndim == 0:
        return None
    if node.op_type == "Gemm":
        if a.ndim != 2 or b.ndim != 2:
            return None
        m, k = a.shape[::-1] if _attribute(node, "transA", 0) else a.shape
        n = b.shape[0] if _attribute(node, "transB", 0) else b.shape[1]
        out = m * n
    else:
        sa = (1, *a.shape) if a.ndim == 1 else a.shape
        sb = (*b.shape, 1) if b.ndim == 1 else b.shape
        out, k = _broadcast_size([sa[:-2], sb[:-2]]) * sa[-2] * sb[-1], sa[-1]
    return out if out * max(k, 1) <= MAX_WORK else MAX_ELEMENTS + 1  # too much work counts as too large


def _attribute(node: Any, name: str, default: Any) -> Any:
    from onnx import helper

    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


_SIZE_RULES = {"ConstantOfShape": _constant_of_shape, "Expand": _expand, "Tile": _tile, "Range": _range,
               "Pad": _pad, "Gather": _gather, "OneHot": _one_hot, "MatMul": _matmul, "MatMulInteger": _matmul,
               "Gemm": _matmul}
