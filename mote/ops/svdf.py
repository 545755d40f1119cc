"""SVDF (TFLite's singular-value-decomposition filter, the layer of streaming keyword spotters), int8 and
float32, as TFLite Micro computes it. Each call:

1. shifts the state [batch, filters * memory] left by one value (the oldest frame drops out);
2. writes each filter's feature projection of the input into its newest slot:
   state[b, f, memory - 1] = weights_feature[f] . x[b]  (int8: requantized to the state's scale, clamped to the
   state's dtype, plus its zero point);
3. out[b, u] = activation(bias[u] + sum over the unit's `rank` filters of weights_time[f] . state[b, f])
   (int8: requantized to the output and clamped to int8; TFLite Micro's integer SVDF applies no fused
   activation, so neither does mote's).

The state is a variable tensor (mote.ir.Tensor.variable): it persists across calls and model_reset()
clears it. Float sums run in the reference kernel's order: each dot product from 0 upward, the bias
first, then the filters' sums one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.float_common import accumulate_taps, c_float, float_activation, float_constant, float_data
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

F32 = np.float32
_FLOAT_ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 2}  # 2: fmax(lo, fmin(x, hi))
_BOUNDS = {"NONE": (0.0, 0.0), "RELU": (0.0, 0.0), "RELU_N1_TO_1": (-1.0, 1.0), "RELU6": (0.0, 6.0)}


@dataclass(frozen=True, eq=False)
class Dims:
    batches: int
    input_size: int
    filters: int
    memory: int
    rank: int

    @property
    def units(self) -> int:
        return self.filters // self.rank


@dataclass(frozen=True, eq=False)
class SvdfS8Params:
    dims: Dims
    input_zero_point: int
    state_zero_point: int
    output_zero_point: int
    feature_multiplier: int
    feature_shift: int
    time_multiplier: int
    time_shift: int
    state_min: int
    state_max: int
    weights_feature: np.ndarray  # int8 [filters, input_size]
    weights_time: np.ndarray  # int8 or int16 [filters, memory], the state's dtype
    bias: np.ndarray  # int32 [units]


@dataclass(frozen=True, eq=False)
class SvdfF32Params:
    dims: Dims
    activation: int  # 0 none, 1 relu (fmax(0, x)), 2 fmax(lo, fmin(x, hi))
    act_min: float
    act_max: float
    weights_feature: np.ndarray
    weights_time: np.ndarray
    bias: np.ndarray


def shape(node: Node) -> list[tuple[int, ...]]:
    x, wf = node.inputs[0], node.inputs[1]
    assert x is not None and wf is not None
    return [(x.shape[0], wf.shape[0] // attr(node, "rank"))]


def _check_common(node: Node) -> Dims:
    checks.input_count(node, 5)
    x = checks.present(node, 0, "input")
    wf, wt = checks.present(node, 1, "feature weights"), checks.present(node, 2, "time weights")
    state = checks.present(node, 4, "state")
    checks.rank(node, x, "input", 2)
    for t, role in ((wf, "feature weights"), (wt, "time weights")):
        checks.rank(node, t, role, 2)
        checks.constant(node, t, role)
    rank = attr(node, "rank")
    if not isinstance(rank, int) or rank < 1 or wf.shape[0] % rank:
        raise checks.fail(node, f"rank {rank!r} must be a positive divisor of the {wf.shape[0]} filters")
    if wf.shape[1] != x.shape[1] or wt.shape[0] != wf.shape[0]:
        raise checks.fail(node, f"the weights {list(wf.shape)} and {list(wt.shape)} do not fit the input "
                                f"{list(x.shape)}: need [filters, {x.shape[1]}] and [filters, memory]")
    dims = Dims(x.shape[0], x.shape[1], wf.shape[0], wt.shape[1], rank)
    if not state.variable or state.shape != (dims.batches, dims.memory * dims.filters):
        raise checks.fail(node, f"the state {state.name!r} must be a variable tensor of shape "
                                f"{[dims.batches, dims.memory * dims.filters]}")
    bias = node.inputs[3]
    if bias is not None:
        checks.constant(node, bias, "bias")
        if bias.size != dims.units:
            raise checks.fail(node, f"the bias {bias.name!r} has {bias.size} values for {dims.units} units")
    if node.outputs[0].shape != (dims.batches, dims.units):
        raise checks.fail(node, f"the output is {list(node.outputs[0].shape)}; SVDF gives "
                                f"{[dims.batches, dims.units]}")
    return dims


def check_s8(node: Node) -> None:
    _check_common(node)
    x, wf, wt, bias, state = node.inputs
    assert x is not None and wf is not None and wt is not None and state is not None
    checks.int8_activation(node, x, "input")
    checks.int8_activation(node, node.outputs[0], "output")
    checks.dtype(node, wf, "feature weights", DType.INT8)
    checks.dtype(node, wt, "time weights", DType.INT8, DType.INT16)
    checks.dtype(node, state, "state", wt.dtype)
    for t, role in ((wf, "feature weights"), (wt, "time weights"), (state, "state")):
        checks.quantized(node, t, role)
    if bias is not None:
        checks.dtype(node, bias, "bias", DType.INT32)


def check_f32(node: Node) -> None:
    _check_common(node)
    float_activation(node, node.inputs[0], "input")
    float_activation(node, node.outputs[0], "output")
    float_activation(node, node.inputs[4], "state")
    float_constant(node, 1, "feature weights")
    float_constant(node, 2, "time weights")
    float_constant(node, 3, "bias", optional=True)
    if attr(node, "activation") not in _FLOAT_ACTIVATIONS:
        raise checks.fail(node, f"fused activation {attr(node, 'activation')!r} is not supported "
                                f"(supported: {', '.join(_FLOAT_ACTIVATIONS)})")


def _dims(node: Node) -> Dims:
    x, wf, wt = node.inputs[0], node.inputs[1], node.inputs[2]
    assert x is not None and wf is not None and wt is not None
    return Dims(x.shape[0], x.shape[1], wf.shape[0], wt.shape[1], attr(node, "rank"))


def prepare_s8(node: Node) -> SvdfS8Params:
    x, wf, wt, bias, state = node.inputs
    out = node.outputs[0]
    assert x is not None and wf is not None and wt is not None and state is not None
    assert wf.data is not None and wt.data is not None
    dims = _dims(node)
    # TFLite Micro multiplies and divides the float32 scales in float, then widens to double
    feature = float(F32(x.scale) * F32(wf.scale) / F32(state.scale))
    time = float(F32(state.scale) * F32(wt.scale) / F32(out.scale))
    info = np.iinfo(state.dtype.np)
    b = np.zeros(dims.units, np.int32) if bias is None or bias.data is None else bias.data.astype(np.int32)
    return SvdfS8Params(dims, x.zero_point, state.zero_point, out.zero_point, *quantize_multiplier(feature),
                        *quantize_multiplier(time), int(info.min), int(info.max), wf.data.astype(np.int8),
                        wt.data.astype(state.dtype.np), b.reshape(-1))


def prepare_f32(node: Node) -> SvdfF32Params:
    dims = _dims(node)
    wf, wt = float_data(node.inputs[1]), float_data(node.inputs[2])
    bias = float_data(node.inputs[3])
    assert wf is not None and wt is not None
    act = attr(node, "activation")
    return SvdfF32Params(dims, _FLOAT_ACTIVATIONS[act], *_BOUNDS[act], wf, wt,
                         np.zeros(dims.units, F32) if bias is None else bias.reshape(-1))


def _frames(state: np.ndarray, d: Dims) -> np.ndarray:
    flat = state.reshape(-1)
    flat[:-1] = flat[1:].copy()  # step 1: shift the whole buffer by one value, as the interpreter does
    return flat.reshape(d.batches, d.filters, d.memory)


def reference_s8(node: Node, p: SvdfS8Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = p.dims
    x = np.asarray(inputs[0], np.int64).reshape(d.batches, d.input_size) - p.input_zero_point
    frames = _frames(inputs[4], d)
    dot = x @ p.weights_feature.astype(np.int64).T  # [batches, filters]
    scaled = np.clip(multiply_by_quantized_multiplier(dot, p.feature_multiplier, p.feature_shift),
                     p.state_min, p.state_max)
    frames[:, :, -1] = (scaled + p.state_zero_point).astype(frames.dtype)  # wraps like the C cast
    sums = np.einsum("bfm,fm->bf", frames.astype(np.int64) - p.state_zero_point, p.weights_time.astype(np.int64))
    acc = p.bias.astype(np.int64) + sums.reshape(d.batches, d.units, d.rank).sum(axis=2)
    acc = ((acc + 2**31) % 2**32 - 2**31)  # int32 arithmetic wraps
    out = multiply_by_quantized_multiplier(acc, p.time_multiplier, p.time_shift) + p.output_zero_point
    return [np.clip(out, -128, 127).astype(np.int8)]


def reference_f32(node: Node, p: SvdfF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    d = p.dims
    x = np.asarray(inputs[0], F32).reshape(d.batches, d.input_size)
    frames = _frames(inputs[4], d)
    dot = np.zeros((d.batches, d.filters), F32)
    for k in range(d.input_size):
        dot = accumulate_taps(dot, x[:, k:k + 1] * p.weights_feature[:, k])
    frames[:, :, -1] = dot
    sums = np.zeros((d.batches, d.filters), F32)
    for j in range(d.memory):
        sums = accumulate_taps(sums, frames[:, :, j] * p.weights_time[:, j])
    acc = np.broadcast_to(p.bias, (d.batches, d.units)).astype(F32)
    per_unit = sums.reshape(d.batches, d.units, d.rank)
    for r in range(d.rank):
        acc = accumulate_taps(acc, per_unit[:, :, r])
    if p.activation == 1:
        acc = np.fmax(F32(0), acc)
    elif p.activation == 2:
        acc = np.fmax(F32(p.act_min), np.fmin(acc, F32(p.act_max)))
    return [acc.astype(F32)]


def _dim_fields(d: Dims) -> dict[str, int | str]:
    return {"batches": d.batches, "input_size": d.input_size, "filters": d.filters, "memory": d.memory,
            "rank": d.rank}


def emit_s8(node: Node, p: SvdfS8Params, em: Emitter) -> CCall:
    x, state = node.inputs[0], node.inputs[4]
    assert x is not None and state is not None
    fields: dict[str, int | str] = {
        **_dim_fields(p.dims), "input_zero_point": p.input_zero_point, "state_zero_point": p.state_zero_point,
        "output_zero_point": p.output_zero_point, "feature_multiplier": p.feature_multiplier,
        "feature_shift": p.feature_shift, "time_multiplier": p.time_multiplier, "time_shift": p.time_shift,
        "state_min": p.state_min, "state_max": p.state_max,
        "weights_feature": em.const(p.weights_feature, "weights_feature"),
        "weights_time": em.const(p.weights_time, "weights_time"), "bias": em.const(p.bias, "bias")}
    func = "mote_svdf_s8_s16" if state.dtype is DType.INT16 else "mote_svdf_s8_s8"
    return CCall(func, "mote_svdf_s8_params", fields, [em.tensor(x), em.tensor(state), em.tensor(node.outputs[0])])


def emit_f32(node: Node, p: SvdfF32Params, em: Emitter) -> CCall:
    x, state = node.inputs[0], node.inputs[4]
    assert x is not None and state is not None
    fields: dict[str, int | str] = {
        **_dim_fields(p.dims), "activation": p.activation, "act_min": c_float(p.act_min),
        "act_max": c_float(p.act_max), "weights_feature": em.const(p.weights_feature, "weights_feature"),
        "weights_time": em.const(p.weights_time, "weights_time"), "bias": em.const(p.bias, "bias")}
    return CCall("mote_svdf_f32", "mote_svdf_f32_params", fields,
                 [em.tensor(x), em.tensor(state), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    d = _dims(node)
    return d.batches * d.filters * (d.input_size + d.memory)


_BY_DTYPE = {DType.INT8: (check_s8, prepare_s8, reference_s8, emit_s8),
             DType.FLOAT32: (check_f32, prepare_f32, reference_f32, emit_f32)}
_check, _prepare, _reference, _emit = dtype_columns(_BY_DTYPE)

OP = register(OpDef("svdf", shape, _prepare, _reference, _emit, macs=macs, tflite=("SVDF",), check=_check,
                    attrs={"rank": 1, "activation": "NONE"}, dtypes=tuple(_BY_DTYPE)))
