"""MEAN: int8 or int16 average over constant axes, keep_dims or not, requantized to the output quantization.

Bit-exact with TFLite Micro's int8 and int16 MEAN, which take one path for every axes combination
(reference_ops::QuantizedMeanOrSum; unlike float, there is no special 4-D axes (1, 2) kernel):
    sum  = int32 sum of the raw inputs over the reduced axes (duplicates count once), n of them
    out  = clamp(MultiplyByQuantizedMultiplier(int32(sum - in_zp * n), multiplier', shift') + out_zp)
where (multiplier, shift) = QuantizeMultiplier(double(s_in) / double(s_out)) and 1/n is folded in:
    k = min(floor(log2 n), 32, 31 + shift);  multiplier' = (multiplier << k) / n (int64, truncating);
    shift' = shift - k.
That is SUM's arithmetic with another multiplier: int16 runs mote_sum_s16.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.fixedpoint import wrap32
from mote.ir import DType, Node
from mote.ops import checks, mean_f32
from mote.ops.reduce_plan import MAX_DIMS, merged_dims, resolved_axes, shape
from mote.ops.registry import CCall, Emitter, OpDef, attr, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier


@dataclass(frozen=True)
class MeanParams:
    axes: tuple[int, ...]  # resolved, unique, ascending
    kept_shape: tuple[int, ...]  # the kept dimensions after merging, in output order
    kept_strides: tuple[int, ...]  # their input element strides
    reduced_shape: tuple[int, ...]  # the reduced dimensions after merging
    reduced_strides: tuple[int, ...]
    bias: int  # -input zero point * count, wrapped to int32
    multiplier: int  # Q31, with 1/count folded in
    shift: int  # > 0: left
    output_zero_point: int


def prepare(node: Node) -> MeanParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    axes = resolved_axes(node)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    multiplier, shift = quantize_multiplier(x.scale / out.scale)
    if count > 0:
        k = min(count.bit_length() - 1, 32, 31 + shift)
        multiplier, shift = (multiplier << k) // count, shift - k
    kept, reduced = merged_dims(x.shape, axes)
    if max(len(kept), len(reduced)) > MAX_DIMS:
        raise UnsupportedError(f"node {node.name!r} (mean): {len(x.shape)}-D input with these axes needs more than "
                               f"{MAX_DIMS} loops")
    return MeanParams(axes, tuple(n for n, _ in kept), tuple(s for _, s in kept), tuple(n for n, _ in reduced),
                      tuple(s for _, s in reduced), int(wrap32(-x.zero_point * count)), multiplier, shift,
                      out.zero_point)


def reference(node: Node, p: MeanParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    sums = np.asarray(inputs[0], dtype=np.int64).sum(axis=p.axes)
    shifted = wrap32(wrap32(sums) + p.bias)
    out = multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift) + p.output_zero_point
    info = np.iinfo(node.outputs[0].dtype.np)
    return [np.clip(out, info.min, info.max).astype(info.dtype).reshape(node.outputs[0].shape)]


def emit(node: Node, p: MeanParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None

    def array(values: tuple[int, ...], hint: str) -> str:
        return em.const(np.array(values, dtype=np.int32), hint)

    fields: dict[str, int | str] = {
        "kept_rank": len(p.kept_shape), "kept_shape": array(p.kept_shape, "mean_shape"),
        "kept_strides": array(p.kept_strides, "mean_strides"),
        "reduced_rank": len(p.reduced_shape), "reduced_shape": array(p.reduced_shape, "mean_shape"),
        "reduced_strides": array(p.reduced_strides, "mean_strides"),
        "bias": p.bias, "multiplier": p.multiplier, "shift": p.shift, "output_zero_point": p.output_zero_point}
    if x.dtype is DType.INT16:  # SUM's kernel and parameters (mote_reduce.h), with the mean's multiplier
        return CCall("mote_sum_s16", "mote_reduce_quantized_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])
    return CCall("mote_mean_s8", "mote_mean_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    """One accumulation per input element."""
    x = node.inputs[0]
    assert x is not None
    return x.size


def check(node: Node) -> None:
    checks.int8_with_int32_constant(node, "axes")
    check_keep_dims(node)


def check_s16(node: Node) -> None:
    checks.input_count(node, 2)
    for t, role in ((checks.present(node, 0, "input"), "input"), (node.outputs[0], "output")):
        checks.dtype(node, t, role, DType.INT16)
        checks.quantized(node, t, role)
    axes = checks.present(node, 1, "axes")
    checks.dtype(node, axes, "axes", DType.INT32)
    checks.constant(node, axes, "axes")
    check_keep_dims(node)


def check_keep_dims(node: Node) -> None:
    if not isinstance(attr(node, "keep_dims"), bool):
        raise checks.fail(node, "attribute keep_dims must be true or false")


# Per activation dtype: (check, prepare, reference, emit).
BY_DTYPE = {DType.INT8: (check, prepare, reference, emit), DType.INT16: (check_s16, prepare, reference, emit),
            DType.FLOAT32: (mean_f32.check, mean_f32.prepare, mean_f32.reference, mean_f32.emit)}

_check, _prepare, _reference, _emit = dtype_columns(BY_DTYPE)
OP = register(OpDef("mean", shape, _prepare, _reference, _emit, macs=macs, tflite=("MEAN",), check=_check,
                    attrs={"keep_dims": False}, dtypes=tuple(BY_DTYPE)))
