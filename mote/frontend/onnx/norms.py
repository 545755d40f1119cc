"""LayerNormalization (opset 17) and RMSNormalization (opset 23) between DequantizeLinear and QuantizeLinear as one
integer kernel (mote.ops.layer_norm_int: fixed point, no float, no libm), the normalized axes flattened into the
last. The scale and bias are read as ONNX computes them (a DequantizeLinear'd constant in float32). Where a float
op or a float graph output takes the result, or the input is float, it runs in float32 as before (floats.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import floats, qdq
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import Act, Const, QConst, Value, identity
from mote.ir import DType, Quant


def _constant(ctx: Context, node: Any, i: int, what: str, size: int) -> np.ndarray | None:
    v = ctx.value(node, i)
    if v is None:
        return None
    if isinstance(v, QConst):
        data = floats.real_f32(v)
    elif isinstance(v, Const):
        data = np.asarray(v.data, np.float32)
    else:
        raise UnsupportedError(f"{ctx.where(node)}: the {what} must be a constant")
    return np.broadcast_to(data.astype(np.float32), (size,)).copy() if data.size in (1, size) else \
        data.reshape(-1)  # a wrong size is refused by the op's check


def normalize(ctx: Context, node: Any, attrs: dict, rms: bool) -> list[Value]:
    where, name = ctx.where(node), node.output[0]
    if any(node.output[1:]):
        raise UnsupportedError(f"{where}: {node.op_type}'s extra outputs are not supported; export it for inference")
    x = qdq.act_input(ctx, node, 0)
    first = int(attrs.get("axis", -1)) % x.rank
    depth = math.prod(x.onnx_shape[first:])
    gamma = _constant(ctx, node, 1, "scale", depth)
    beta = None if rms else _constant(ctx, node, 2, "bias", depth)
    epsilon = float(np.float32(attrs.get("epsilon", 1e-5)))

    def build(q: Quant, lo: float, hi: float, act: str) -> Act:
        b = ctx.b
        xs = b.to_layout(x, identity(x.rank))
        flat = b.reshape(xs.tensor, (math.prod(x.onnx_shape[:first]), depth), f"{name}_rows")
        consts = [b.const(f"{name}_{what}", v, DType.FLOAT32) for what, v in (("gamma", gamma), ("beta", beta))
                  if v is not None]
        if beta is None and not rms:
            consts.append(None)  # type: ignore[arg-type]
        out = b.node("layer_norm", [flat, *consts], f"{name}_norm", DType.INT8, q, {"epsilon": epsilon, "rms": rms})
        return Act(b.reshape(out, xs.tensor.shape, name), identity(x.rank))

    return qdq.pending(ctx, node, build, clampable=False)


def layer_norm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    if int(attrs.get("stash_type", 1)) != 1:
        return floats.layer_norm(ctx, node, attrs)  # refused there with its message
    return normalize(ctx, node, attrs, rms=False)


def rms_norm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    if int(attrs.get("stash_type", 1)) != 1:
        raise UnsupportedError(f"{ctx.where(node)}: RMSNormalization with stash_type other than 1 is not supported")
    return normalize(ctx, node, attrs, rms=True)


def rms_norm_float(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """RMSNormalization in float32: x / sqrt(mean(x^2) + epsilon) * scale, the mean summed left to right."""
    b, x, name = ctx.b, floats.float_input(ctx, node, 0), node.output[0]
    if not isinstance(x, Act):
        raise UnsupportedError(f"{ctx.where(node)}: the input must be computed at run time")
    first = int(attrs.get("axis", -1)) % x.rank
    axes = b.const(f"{name}_axes", np.array(sorted(x.perm.index(a) for a in range(first, x.rank)), np.int32),
                   DType.INT32)
    square = b.node("square", [x.tensor], f"{name}_x2", DType.FLOAT32, None)
    mean = b.node("mean", [square, axes], f"{name}_ms", DType.FLOAT32, None, {"keep_dims": True})
    eps = b.const(f"{name}_eps", np.array(np.float32(attrs.get("epsilon", 1e-5))), DType.FLOAT32)
    rms = b.node("sqrt", [b.node("add", [mean, eps], f"{name}_ms_eps", DType.FLOAT32, None)], f"{name}_rms",
                 DType.FLOAT32, None)
    normalized = Act(b.node("div", [x.tensor, rms], f"{name}_normalized", DType.FLOAT32, None), x.perm)
    return [floats._binary(ctx, "mul", normalized, floats.float_input(ctx, node, 1), name)]


HANDLERS: dict[tuple[str, str], tuple[qdq.Handler, set[str]]] = {
    ("", "LayerNormalization"): (floats.either(layer_norm, floats.layer_norm), {"axis", "epsilon", "stash_type"}),
    ("", "RMSNormalization"): (floats.either(rms_norm, rms_norm_float), {"axis", "epsilon", "stash_type"}),
}
