"""Elementwise float ops of one quantized tensor as a 256-byte table: Erf, Gelu, Tanh, Exp, Sqrt, Div, Pow, ... (GELU's
erf and tanh forms, the Gelu op, and any such chain an exporter writes) between DequantizeLinear and QuantizeLinear.

A value computed elementwise from one int8 tensor x (its DequantizeLinear, then unary ops, binary ops whose other
input is a scalar constant or another such value of the same x) is a function of x's byte: it is kept as its 256
float32 results (`Tabled.levels`, evaluated by onnx's reference implementation of each op, in float32 as ONNX
specifies), and the QuantizeLinear after the chain makes one table_lookup op (ONNX's rounding: halves to even,
saturated). The device looks one byte up per value, whatever the chain computes; against onnxruntime the outputs
differ only where its float32 function results and onnx's differ across a rounding boundary (one step).
Sigmoid too is a table (onnxruntime's float logistic, rounded once, where TFLite's int8 LOGISTIC costs a few hundred
instructions a value). Ops mote also runs quantized (Add, Mul, Relu, Clip) stay so unless their input is already
such a chain;
where a float op takes the chain's result, it runs in float32 (floats.py) if mote has the ops in float. A
ReduceMean over the last axis of such a chain (RMSNorm's mean of squares) sums the function's values from an
integer table (mote.ops.table_mean), within 2^-10 of an output step before its one rounding.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from mote.errors import UnsupportedError
from mote.frontend.onnx import floats
from mote.frontend.onnx.context import Context
from mote.frontend.onnx.qdq import Handler
from mote.frontend.onnx.values import Act, Const, Deq, Pending, QConst, Value, identity, once
from mote.ir import DType, Quant
from mote.quant import quantize_multiplier

BYTES = np.arange(256, dtype=np.uint8).view(np.int8)  # the input value of each table position
UNARY = ("Sigmoid", "Erf", "Gelu", "Tanh", "Exp", "Log", "Sqrt", "Neg", "Abs", "Reciprocal", "Softplus", "Softsign",
         "Elu", "Selu", "Celu", "Mish", "Floor", "Ceil", "Round", "Sin", "Cos", "HardSigmoid", "HardSwish",
         "LeakyRelu", "Sign")
BINARY = ("Sub", "Div", "Pow", "Max", "Min")
QUANTIZED = ("Add", "Mul", "Relu", "Clip")  # tabled only after another tabled op


@dataclass(eq=False)
class Tabled(Pending):
    source: Act | None = None  # the int8 tensor the chain starts from
    levels: np.ndarray | None = None  # float32 [256]: the chain's value at each input byte (BYTES)


def _levels(v: Value | None) -> tuple[Act, np.ndarray] | None:
    if isinstance(v, Tabled) and v.source is not None and v.levels is not None:
        return v.source, v.levels
    if isinstance(v, Deq) and v.act.tensor.dtype is DType.INT8 and len(v.act.quant.scale) == 1:
        q = v.act.quant
        return v.act, ((BYTES.astype(np.int32) - q.zero_point[0]).astype(np.float32) * np.float32(q.scale[0]))
    return None


def _evaluate(ctx: Context, node: Any, feeds: dict[str, np.ndarray]) -> np.ndarray | None:
    """The node's first output on the feeds, by onnx's reference implementation (a one-node model with typed
    inputs, so that ops defined as functions, such as Gelu, expand)."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
              for n, a in feeds.items()]
    graph = helper.make_graph([node], "table", inputs, [helper.make_tensor_value_info(node.output[0], 0, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", ctx.opsets.get("", 13))])
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = ReferenceEvaluator(model).run(None, feeds)[0]
    except Exception:  # the reference evaluator raises many kinds; the op's own handler gives the message
        return None
    out = np.asarray(out)
    return out.astype(np.float32) if out.shape == (256,) and out.dtype.kind == "f" else None


def quantized_table(levels: np.ndarray, q: Quant) -> np.ndarray:
    """ONNX QuantizeLinear of the levels into mote's int8 (uint8 is stored shifted): halves to even, saturated,
    NaN as 0."""
    scaled = np.nan_to_num(levels.astype(np.float32) / np.float32(q.scale[0]), nan=0.0, posinf=1e9, neginf=-1e9)
    return np.clip(np.rint(scaled) + q.zero_point[0], -128, 127).astype(np.int8)


def tabled(op: str, fallback: Handler | None, in_float: Handler | None) -> Handler:
    """The handler of `op`: a Tabled value when its inputs allow, else `fallback` (the op's handler as before)."""
    def handler(ctx: Context, node: Any, attrs: dict) -> list[Value]:
        source: Act | None = None
        feeds: dict[str, np.ndarray] = {}
        chained = False
        for i, name in enumerate(node.input):
            v = ctx.value(node, i)
            if v is None:
                continue
            if isinstance(v, (Const, QConst)) and (v.data if isinstance(v, Const) else v.q).size == 1:
                feeds[name] = v.data.reshape(()) if isinstance(v, Const) else floats.real_f32(v).reshape(())
                continue
            found = _levels(v)
            if found is None or (source is not None and found[0].tensor is not source.tensor):
                source = None
                break
            source, feeds[name] = found
            chained |= isinstance(v, Tabled)
        levels = None if source is None or (op in QUANTIZED and not chained) else _evaluate(ctx, node, feeds)
        if source is None and op in ("Div", "Mul"):
            scaled = row_scale(ctx, node, None if in_float is None else once(lambda: in_float(ctx, node, attrs)[0]))
            if scaled is not None:
                return scaled
        if source is None or levels is None:
            if fallback is None:
                raise UnsupportedError(f"{ctx.where(node)}: {op} runs as a table of one quantized tensor: its input "
                                       "must be a DequantizeLinear'd int8 tensor (or elementwise ops of one), its "
                                       "other inputs scalar constants")
            return fallback(ctx, node, attrs)
        x, name = source, node.output[0]

        def build(q: Quant, lo: float, hi: float) -> Act:
            table = ctx.b.const(f"{name}_table", quantized_table(levels, q), DType.INT8)
            return Act(ctx.b.node("table_lookup", [x.tensor, table], name, DType.INT8, q), x.perm)

        as_float = None if in_float is None else once(lambda: in_float(ctx, node, attrs)[0])
        return [Tabled(op, name, build, clampable=False, as_float=as_float, source=x, levels=levels)]

    return handler


def _row_multipliers(real: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TFLite's (multiplier, shift) of each real factor, capped at 2^15 (every nonzero input then saturates, as it
    would) and 0 below 2^-31 or where it is not finite and positive."""
    mul, shift = np.zeros(256, np.int32), np.zeros(256, np.int32)
    for i, r in enumerate(real):
        if r == np.inf:
            r = 2.0**15
        elif not np.isfinite(r) or r <= 0:
            continue
        m, e = quantize_multiplier(min(float(r), 2.0**15))
        if e >= -31:
            mul[i], shift[i] = m, e
    return mul, shift


def row_scale(ctx: Context, node: Any, as_float: Any = None) -> list[Value] | None:
    """Div(x, f(s)) or Mul(x, f(s)) / Mul(f(s), x) of a dequantized x [..., D] and a chain f (or just the
    dequantization) of one value per row s [..., 1] (RMSNorm's x / sqrt(mean(x^2) + eps), or x * its quantized
    reciprocal): a row_scale op; None when the inputs are not so."""
    values = [ctx.value(node, i) for i in range(2)]
    found = None
    for xi, fi in [(0, 1)] if node.op_type == "Div" else [(0, 1), (1, 0)]:
        x, f = values[xi], _levels(values[fi])
        if (isinstance(x, Deq) and f is not None and len(x.act.quant.scale) == 1
                and f[0].onnx_shape == (*x.act.onnx_shape[:-1], 1) and x.act.onnx_shape[-1] > 1):
            found = (x.act, f[0], f[1].astype(np.float64))
            break
    if found is None:
        return None
    xs, rows, levels = found
    name = node.output[0]

    def build(q: Quant, lo: float, hi: float) -> Act:
        ratio = float(np.float32(xs.quant.scale[0])) / float(np.float32(q.scale[0]))
        with np.errstate(all="ignore"):
            real = ratio / levels if node.op_type == "Div" else ratio * levels
        mul, shift = _row_multipliers(real)
        b = ctx.b
        xt = b.to_layout(xs, identity(xs.rank)).tensor
        rt = b.to_layout(rows, identity(rows.rank)).tensor
        consts = [b.const(f"{name}_multipliers", mul, DType.INT32), b.const(f"{name}_shifts", shift, DType.INT32)]
        return Act(b.node("row_scale", [xt, rt, *consts], name, DType.INT8, q), identity(xs.rank))

    return [Pending(node.op_type, name, build, clampable=False, as_float=as_float)]


MEAN_FRACTION = 10  # fraction bits of table_mean's table


def reduce_mean(fallback: Handler) -> Handler:
    """ReduceMean over the last axis (keepdims) of a Tabled value (RMSNorm's mean of squares): a table_mean op,
    the function's values summed in integers; anything else as before (`fallback`)."""
    def handler(ctx: Context, node: Any, attrs: dict) -> list[Value]:
        v = ctx.value(node, 0)
        if not isinstance(v, Tabled) or v.source is None or v.levels is None or not attrs.get("keepdims", 1):
            return fallback(ctx, node, attrs)
        x, levels, name = v.source, v.levels, node.output[0]
        axes = attrs.get("axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            axes = [int(a) for a in ctx.const(node, 1, "axes").reshape(-1)]
        if axes is None or [int(a) % x.rank for a in axes] != [x.rank - 1]:
            return fallback(ctx, node, attrs)
        steps = levels.astype(np.float64)
        if not np.isfinite(steps).all():
            return fallback(ctx, node, attrs)

        def build(q: Quant, lo: float, hi: float) -> Act:
            values = np.round(steps / float(np.float32(q.scale[0])) * 2.0**MEAN_FRACTION)
            if np.abs(values).max() >= 2**30:
                raise UnsupportedError(f"{ctx.where(node)}: the values averaged are too large for the output's "
                                       "scale; the model's quantization ranges disagree")
            b = ctx.b
            xs = b.to_layout(x, identity(x.rank))
            table = b.const(f"{name}_table", values.astype(np.int32), DType.INT32)
            out = b.node("table_mean", [xs.tensor, table], name, DType.INT8, q, {"fraction": MEAN_FRACTION})
            return Act(out, identity(x.rank))

        return [Pending(node.op_type, name, build, clampable=False,
                        as_float=once(lambda: fallback(ctx, node, attrs)[0]))]

    return handler


def handlers(existing: dict[tuple[str, str], tuple[Handler, set[str]]]) -> dict[tuple[str, str],
                                                                               tuple[Handler, set[str]]]:
    """The table-making handlers of the elementwise ops, over the `existing` ones (their fallbacks)."""
    out: dict[tuple[str, str], tuple[Handler, set[str]]] = {}
    float_of = {**{op: floats.unary for op in floats.UNARY}, **{op: floats.binary for op in floats.BINARY},
                "Reciprocal": floats.reciprocal, "LeakyRelu": floats.leaky_relu, "HardSigmoid": floats.hard_sigmoid,
                "HardSwish": floats.hard_sigmoid, "Pow": floats.power, "Clip": floats.clip}
    attributes = {"Gelu": {"approximate"}, "Elu": {"alpha"}, "Selu": {"alpha", "gamma"}, "Celu": {"alpha"},
                  "LeakyRelu": {"alpha"}, "HardSigmoid": {"alpha", "beta"}, "Clip": {"min", "max"}}
    for op in (*UNARY, *BINARY, *QUANTIZED):
        fallback, allowed = existing.get(("", op), (None, attributes.get(op, set())))
        out[("", op)] = (tabled(op, fallback, float_of.get(op)), allowed | attributes.get(op, set()))
    mean, allowed = existing[("", "ReduceMean")]
    out[("", "ReduceMean")] = (reduce_mean(mean), allowed)
    return out
