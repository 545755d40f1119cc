"""Float islands in QDQ ONNX graphs: ops the quantizer left in float32 between DequantizeLinear and
QuantizeLinear (Tanh, Exp, Div, Sub, Sqrt, ReduceMean, LayerNormalization, HardSwish, ... as exporters write
normalization layers, activations or input preprocessing), a float graph output after the last
DequantizeLinear (a Softmax), and Cast from a graph input to float32.

They become DEQUANTIZE -> mote float32 ops -> QUANTIZE; the QUANTIZE rounds halves to even as ONNX's
QuantizeLinear does (lower.quantize). Ops mote also runs quantized (Sigmoid, Softmax, Add, Mul, Relu, Clip)
stay quantized where a QuantizeLinear follows them; only where a float op or a float graph output takes their
result are they built in float32 (`Pending.as_float`).
Elementwise ops without a transcendental function (Add, Sub, Mul, Div, Neg, Abs, Sqrt, Relu, Clip, LeakyRelu,
HardSigmoid, HardSwish, Max, Min, Pow 2, Floor, Ceil, Round) compute what onnxruntime computes, bit for bit;
exp, log, tanh, logistic, sin and cos are mote's own (README, float semantics), as is 1 / x (onnxruntime's
Reciprocal is Eigen's, an ULP off at times); sums (ReduceMean, ReduceSum, Softmax) add left to right.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import lower, qdq, qop
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.values import Act, Const, Deq, Pending, QConst, Value, identity, once, storage_of
from mote.ir import DType

F32 = DType.FLOAT32
Operand = Act | np.ndarray

# ONNX op -> mote float32 op of one input.
UNARY = {"Sigmoid": "logistic", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Neg": "neg",
         "Abs": "abs", "Relu": "relu", "Floor": "floor", "Ceil": "ceil", "Round": "round", "Sin": "sin",
         "Cos": "cos"}
BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Max": "maximum", "Min": "minimum"}
REDUCE = {"ReduceMean": "mean", "ReduceSum": "sum", "ReduceMax": "reduce_max", "ReduceMin": "reduce_min"}
# graph input dtypes a Cast to float32 may read (mote's cast takes these; uint8 is dequantized with scale 1)
CAST_FROM = {np.dtype(np.float32): F32, np.dtype(np.uint8): DType.UINT8, np.dtype(np.int8): DType.INT8,
             np.dtype(np.int16): DType.INT16, np.dtype(np.int32): DType.INT32, np.dtype(np.bool_): DType.BOOL}


def is_float(v: Value | None) -> bool:
    """A run-time float32 value: a float tensor, or a pending op a float consumer takes in float."""
    return (isinstance(v, Act) and v.tensor.dtype is F32) or (isinstance(v, Pending) and v.as_float is not None)


def dequantized(ctx: Context, act: Act) -> Act:
    """The int8 activation as float32 (one DEQUANTIZE per tensor and layout, however many read it)."""
    key = (act.tensor, act.perm)
    if key not in ctx.dequantized:
        ctx.dequantized[key] = lower.dequantize(ctx.b, act, f"{act.tensor.name}_float")
    return ctx.dequantized[key]


def real_f32(c: QConst) -> np.ndarray:
    """DequantizeLinear of a constant as ONNX computes it: (q - zero_point) * scale in float32."""
    shape = [1] * c.q.ndim
    if c.axis is not None and c.scale.size > 1:
        shape[c.axis] = -1
    scale = c.scale.astype(np.float32).reshape(shape) if c.scale.size > 1 else np.float32(c.scale[0])
    zp = c.zero_point.reshape(shape) if c.zero_point.size > 1 else int(c.zero_point[0])
    return (np.asarray(c.q - zp).astype(np.float32) * scale).astype(np.float32)


def float_input(ctx: Context, node: Any, i: int) -> Operand:
    """Input i of a float op: a float32 Act (dequantized if need be) or a float32 constant."""
    v = ctx.value(node, i)
    where, name = ctx.where(node), node.input[i] if i < len(node.input) else "?"
    if isinstance(v, Deq):
        return dequantized(ctx, v.act)
    if isinstance(v, Pending):
        if v.as_float is None:
            raise UnsupportedError(f"{where}: input {name!r} is the unquantized result of {v.op} node {v.name!r}, "
                                   "which mote computes quantized only; the model needs a QuantizeLinear after it")
        return v.as_float()
    if isinstance(v, Act):
        if v.tensor.dtype is F32:
            return v
        raise UnsupportedError(f"{where}: input {name!r} is a {v.tensor.dtype.value} tensor; a float op needs a "
                               "DequantizeLinear before it")
    if isinstance(v, QConst):
        return real_f32(v)
    if isinstance(v, Const):
        return np.asarray(v.data, np.float32)
    raise UnsupportedError(f"{where}: input {i} is missing")


def _act(ctx: Context, node: Any, i: int) -> Act:
    x = float_input(ctx, node, i)
    if not isinstance(x, Act):
        raise UnsupportedError(f"{ctx.where(node)}: input {node.input[i]!r} must be computed at run time")
    return x


def _unary(ctx: Context, op: str, x: Act, name: str, attrs: dict | None = None) -> Act:
    return Act(ctx.b.node(op, [x.tensor], name, F32, None, attrs), x.perm)


def _binary(ctx: Context, op: str, a: Operand, c: Operand, name: str) -> Act:
    """A float op of two inputs with numpy broadcasting; constants become float32 const tensors."""
    b = ctx.b
    acts = [v for v in (a, c) if isinstance(v, Act)]
    if not acts:
        raise UnsupportedError(f"{name}: both inputs are constants")
    like = acts[0]
    if len(acts) == 2 and acts[0].rank != acts[1].rank:
        like = b.to_layout(max(acts, key=lambda v: v.rank), identity(max(v.rank for v in acts)))
    tensors = []
    for i, v in enumerate((a, c)):
        if isinstance(v, Act):
            tensors.append(b.to_layout(v, like.perm if v.rank == like.rank else identity(v.rank)).tensor)
        elif np.ndim(v) > like.rank:
            raise UnsupportedError(f"{name}: a {np.ndim(v)}-D constant against a {like.rank}-D tensor; mote broadcasts "
                                   "constants of at most the tensor's rank (reshape the constant in the model)")
        else:
            tensors.append(b.const(f"{name}_in{i}", storage_of(v, like.rank, like.perm), F32))
    out = b.node(op, tensors, name, F32, None)
    return Act(out, like.perm if len(out.shape) == like.rank else identity(len(out.shape)))


# -- handlers ---------------------------------------------------------------------------------------------------------

def unary(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return [_unary(ctx, UNARY[node.op_type], _act(ctx, node, 0), node.output[0])]


def binary(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    a, c = float_input(ctx, node, 0), float_input(ctx, node, 1)
    return [_binary(ctx, BINARY[node.op_type], a, c, node.output[0])]


def leaky_relu(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """LeakyRelu in float32; QOperator's com.microsoft QLinearLeakyRelu too, between a DEQUANTIZE and a
    QUANTIZE with its scales and zero points (onnxruntime tabulates it the same way: in float, then rounded
    half to even)."""
    alpha, name = float(np.float32(attrs.get("alpha", 0.01))), node.output[0]
    if node.op_type == "LeakyRelu":
        return [_unary(ctx, "leaky_relu", _act(ctx, node, 0), name, {"alpha": alpha})]
    x = qop.input_act(ctx, node, 0)
    out_q, _ = qop.output_quant(ctx, node, 3)
    y = _unary(ctx, "leaky_relu", dequantized(ctx, x), f"{name}_float", {"alpha": alpha})
    return [lower.quantize(ctx.b, y, out_q, name)]


def hard_sigmoid(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """HardSigmoid max(0, min(1, alpha * x + beta)), and HardSwish x * HardSigmoid(x) with alpha 1/6 and beta
    1/2 (MobileNetV3's activations), in onnxruntime's order: a product, a sum, the clamps, the product by x."""
    x, name = _act(ctx, node, 0), node.output[0]
    swish = node.op_type == "HardSwish"
    alpha = np.float32(1.0 / 6.0 if swish else attrs.get("alpha", 0.2))
    beta = np.float32(0.5 if swish else attrs.get("beta", 0.5))
    y = _binary(ctx, "add", _binary(ctx, "mul", x, alpha, f"{name}_scaled"), beta, f"{name}_shifted")
    y = _binary(ctx, "maximum", _binary(ctx, "minimum", y, np.float32(1.0), f"{name}_below_one"), np.float32(0.0),
                f"{name}_sigmoid" if swish else name)
    return [_binary(ctx, "mul", x, y, name) if swish else y]


def reciprocal(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    return [_binary(ctx, "div", np.float32(1.0), _act(ctx, node, 0), node.output[0])]


def power(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Pow by a constant 2 (LayerNorm's variance as exporters write it): x * x, as onnxruntime squares."""
    x = _act(ctx, node, 0)
    exponent = ctx.value(node, 1)
    values = np.unique(np.asarray(exponent.data if isinstance(exponent, Const) else np.nan, np.float64))
    if values.size != 1 or values[0] not in (1.0, 2.0):
        raise UnsupportedError(f"{ctx.where(node)}: Pow is supported with a constant exponent 1 or 2 only; write "
                               "other powers with Mul, Sqrt or Exp and Log in the model")
    return [x if values[0] == 1.0 else _unary(ctx, "square", x, node.output[0])]


def clip(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    lo, hi = qdq.clip_bounds(ctx, node, attrs)
    x, name = _act(ctx, node, 0), node.output[0]
    if node.op_type == "Relu":
        return [_unary(ctx, "relu", x, name)]
    if lo > -np.inf:
        x = _binary(ctx, "maximum", x, np.float32(lo), f"{name}_min" if hi < np.inf else name)
    if hi < np.inf:
        x = _binary(ctx, "minimum", x, np.float32(hi), name)
    return [x]


def softmax(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Softmax or LogSoftmax over one axis (opset >= 13) or over the flattened trailing axes (legacy opsets)."""
    b, x, name = ctx.b, _act(ctx, node, 0), node.output[0]
    op, op_attrs = ("softmax", {"beta": 1.0}) if node.op_type == "Softmax" else ("log_softmax", None)
    legacy = ctx.opsets.get("", 13) < 13
    axis = int(attrs.get("axis", 1 if legacy else -1)) % x.rank
    if legacy and axis != x.rank - 1:
        x = b.to_layout(x, identity(x.rank))
        flat = b.reshape(x.tensor, (math.prod(x.onnx_shape[:axis]), math.prod(x.onnx_shape[axis:])), f"{name}_2d")
        out = b.node(op, [flat], f"{name}_{op}", F32, None, op_attrs)
        return [Act(b.reshape(out, x.tensor.shape, name), x.perm)]
    if x.perm[-1] != axis:
        x = b.to_layout(x, tuple(p for p in x.perm if p != axis) + (axis,))
    return [_unary(ctx, op, x, name, op_attrs)]


def reduce(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    b, x, name = ctx.b, _act(ctx, node, 0), node.output[0]
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = [int(a) for a in ctx.const(node, 1, "axes").reshape(-1)]
    if not axes:
        if attrs.get("noop_with_empty_axes", 0):
            return [x]
        axes = list(range(x.rank))
    onnx_axes = sorted({int(a) % x.rank for a in axes})
    keep = bool(attrs.get("keepdims", 1))
    if not keep:
        x = b.to_layout(x, identity(x.rank))
    stored = np.array(sorted(x.perm.index(a) for a in onnx_axes), np.int32)
    axes_t = b.const(f"{name}_axes", stored, DType.INT32)
    out = b.node(REDUCE[node.op_type], [x.tensor, axes_t], name, F32, None, {"keep_dims": keep})
    return [Act(out, x.perm if keep else identity(len(out.shape)))]


def layer_norm(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """LayerNormalization (opset 17) in the order of onnxruntime's CPU kernel source, in float32: mean and mean
    of squares summed left to right, variance = E[x^2] - E[x]^2, y = (x - mean) / sqrt(var + epsilon) * scale + B.
    (The onnxruntime release the tests run is a few ULP from that order's results; quantized, they agree.)"""
    where, name = ctx.where(node), node.output[0]
    if any(node.output[1:]):
        raise UnsupportedError(f"{where}: LayerNormalization's Mean and InvStdDev outputs are not supported; export "
                               "it for inference (output Y only)")
    if int(attrs.get("stash_type", 1)) != 1:
        raise UnsupportedError(f"{where}: LayerNormalization with stash_type other than 1 (float32) is not supported; "
                               "export it with stash_type=1")
    x = _act(ctx, node, 0)
    b = ctx.b
    first = int(attrs.get("axis", -1)) % x.rank
    stored = np.array(sorted(x.perm.index(a) for a in range(first, x.rank)), np.int32)

    def mean(v: Act, what: str) -> Act:
        axes = b.const(f"{name}_{what}_axes", stored, DType.INT32)
        return Act(b.node("mean", [v.tensor, axes], f"{name}_{what}", F32, None, {"keep_dims": True}), v.perm)

    mu = mean(x, "mean")
    variance = _binary(ctx, "sub", mean(_unary(ctx, "square", x, f"{name}_x2"), "mean_x2"),
                       _unary(ctx, "square", mu, f"{name}_mean2"), f"{name}_var")
    epsilon = np.float32(attrs.get("epsilon", 1e-5))
    std = _unary(ctx, "sqrt", _binary(ctx, "add", variance, epsilon, f"{name}_var_eps"), f"{name}_std")
    y = _binary(ctx, "div", _binary(ctx, "sub", x, mu, f"{name}_centered"), std, f"{name}_normalized")
    y = _binary(ctx, "mul", y, float_input(ctx, node, 1), f"{name}_scaled" if len(node.input) > 2 else name)
    if len(node.input) > 2 and node.input[2]:
        y = _binary(ctx, "add", y, float_input(ctx, node, 2), name)
    return [y]


def cast(ctx: Context, node: Any, attrs: dict) -> list[Value]:
    """Cast to float32 of a graph input (exporters cast uint8 images, int or float64 inputs), or the
    float tail of ConvInteger / MatMulInteger (qop.py)."""
    from onnx import TensorProto

    tail = qop.accumulator_tail(ctx, node, attrs)
    if tail is not None:
        return tail
    v, where, name = ctx.value(node, 0), ctx.where(node), node.output[0]
    if int(attrs.get("to", 0)) != TensorProto.FLOAT:
        raise UnsupportedError(f"{where}: Cast of a run-time tensor to anything but float32 is not supported; mote "
                               "reads Cast where exporters convert a graph input to float32")
    if isinstance(v, (Deq, Pending)):
        return [float_input(ctx, node, 0)]
    if not isinstance(v, Act):
        raise UnsupportedError(f"{where}: Cast needs a run-time input")
    t = v.tensor
    if t.dtype is F32:
        return [v]
    if t.dtype is DType.UINT8 and t.quant is not None:  # scale 1, zero point 0: exact, mote's u8 dequantize
        return [lower.dequantize(ctx.b, v, name)]
    if t.dtype in CAST_FROM.values():
        return [_unary(ctx, "cast", v, name)]
    raise UnsupportedError(f"{where}: Cast of a {t.dtype.value} tensor to float32 is not supported")


# -- ops mote runs quantized where a QuantizeLinear follows, in float32 where a float consumer takes them ------------

def either(quantized: qdq.Handler, in_float: qdq.Handler, clamp: bool = False) -> qdq.Handler:
    """The quantized handler, unless an input is a float value (then the float one); its Pending result
    learns to build itself in float32 instead (`as_float`), for a float consumer or graph output. A clamp
    (Relu, Clip) after a pending op that takes a fused activation stays fused, quantized."""
    def handler(ctx: Context, node: Any, attrs: dict) -> list:
        inputs = [ctx.value(node, i) for i in range(len(node.input))]
        if any(is_float(v) and not (clamp and isinstance(v, Pending) and v.clampable) for v in inputs):
            return in_float(ctx, node, attrs)
        out = quantized(ctx, node, attrs)
        if len(out) == 1 and type(out[0]) is Pending and out[0].as_float is None:  # not qop's Accumulator
            out[0] = replace(out[0], as_float=once(lambda: in_float(ctx, node, attrs)[0]))
        return out
    return handler


_BOTH = {"Sigmoid": (qdq.sigmoid, unary), "Softmax": (qdq.softmax, softmax), "Add": (qop.tail_or(qdq.binary), binary),
         "Mul": (qop.tail_or(qdq.binary), binary)}
HANDLERS: dict[tuple[str, str], tuple[qdq.Handler, set[str]]] = {
    **{("", op): (either(q, f), qdq.HANDLERS[op][1]) for op, (q, f) in _BOTH.items()},
    # a Relu / Clip after a pending op fuses into it (quantized) unless a float value comes in
    ("", "Relu"): (either(qdq.relu_clip, clip, clamp=True), set()),
    ("", "Clip"): (either(qdq.relu_clip, clip, clamp=True), {"min", "max"}),
    **{("", op): (unary, set()) for op in UNARY if op not in ("Sigmoid", "Relu")},
    **{("", op): (binary, set()) for op in BINARY if op not in ("Add", "Mul")},
    ("", "Reciprocal"): (reciprocal, set()),
    ("", "LogSoftmax"): (softmax, {"axis"}),
    ("", "LeakyRelu"): (leaky_relu, {"alpha"}),
    ("", "HardSigmoid"): (hard_sigmoid, {"alpha", "beta"}),
    ("", "HardSwish"): (hard_sigmoid, set()),
    ("com.microsoft", "QLinearLeakyRelu"): (leaky_relu, {"alpha"}),
    ("", "Pow"): (power, set()),
    **{("", op): (reduce, {"axes", "keepdims", "noop_with_empty_axes"}) for op in REDUCE},
    ("", "Cast"): (cast, {"to", "saturate", "round_mode"}),
    ("", "LayerNormalization"): (layer_norm, {"axis", "epsilon", "stash_type"}),
}
