"""SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over constant axes, keep_dims or not, as TFLite Micro runs them:
float32 and int8 for the first three, int16 for SUM, bool for REDUCE_ALL (a logical AND; true over nothing).

Every output folds its reduced elements in the input's row-major order (TFLite's ReduceGeneric):
  max, min  (in > acc ? in : acc), (in < acc ? in : acc) from the dtype's lowest / highest value; a
            NaN is never taken. int8 needs the output quantization to equal the input's (TFLite Micro
            checks it), so no requantization happens.
  sum float from 0.0, in order.
  sum int8/int16 s = int32 sum of the raw values, n of them; then as MEAN without the division:
            out = clamp(MultiplyByQuantizedMultiplier(s - zp_in * n, multiplier, shift) + zp_out) with
            (multiplier, shift) = QuantizeMultiplier(double(s_in) / double(s_out)). (Older TFLite sources
            compute this in float; the tflite-micro interpreter computes this integer form, value by value.)
The kernels walk the kept and reduced dimensions as mote.ops.reduce_plan merges them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.reduce_plan import MAX_DIMS, merged_dims, resolved_axes, shape
from mote.ops.registry import CCall, Emitter, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

_SUFFIX = {DType.FLOAT32: "f32", DType.INT8: "s8", DType.INT16: "s16", DType.BOOL: "bool"}
DTYPES = {"reduce_max": (DType.FLOAT32, DType.INT8), "reduce_min": (DType.FLOAT32, DType.INT8),
          "sum": (DType.FLOAT32, DType.INT8, DType.INT16), "reduce_all": (DType.BOOL,)}
INT32_LIMIT = 2**31


@dataclass(frozen=True)
class ReduceParams:
    axes: tuple[int, ...]  # resolved, unique, ascending
    kept_shape: tuple[int, ...]  # merged kept dimensions (the output, row-major)
    kept_strides: tuple[int, ...]  # their input element strides
    reduced_shape: tuple[int, ...]
    reduced_strides: tuple[int, ...]
    count: int  # reduced elements per output
    bias: int = 0  # quantized sum: -zp_in * count
    multiplier: int = 0  # quantized sum: Q31 of s_in / s_out
    shift: int = 0  # > 0: left
    output_zero_point: int = 0


def check(node: Node) -> None:
    checks.input_count(node, 2)
    x = checks.present(node, 0, "input")
    out = node.outputs[0]
    checks.dtype(node, x, "input", *DTYPES[node.op])
    checks.dtype(node, out, "output", x.dtype)
    axes = checks.present(node, 1, "axes")
    checks.dtype(node, axes, "axes", DType.INT32)
    checks.constant(node, axes, "axes")
    if not isinstance(attr(node, "keep_dims"), bool):
        raise checks.fail(node, "attribute keep_dims must be true or false")
    kept, reduced = merged_dims(x.shape, resolved_axes(node))
    if max(len(kept), len(reduced)) > MAX_DIMS:
        raise checks.fail(node, f"{len(x.shape)}-D input with these axes needs more than {MAX_DIMS} loops")
    if x.dtype in (DType.FLOAT32, DType.BOOL):
        return
    checks.quantized(node, x, "input")
    checks.quantized(node, out, "output")
    if node.op != "sum" and (x.scale, x.zero_point) != (out.scale, out.zero_point):
        raise checks.fail(node, "the output's scale and zero point differ from the input's; TFLite Micro's int8 "
                                f"{node.op.upper()} requires them equal")
    count = int(np.prod([x.shape[a] for a in resolved_axes(node)], dtype=np.int64))
    if node.op == "sum" and count * 2 ** (8 * x.dtype.itemsize) >= INT32_LIMIT:
        raise checks.fail(node, f"a sum of {count} {x.dtype.value} values can leave the int32 accumulator "
                                "TFLite Micro uses; split the reduction")


def prepare(node: Node) -> ReduceParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    axes = resolved_axes(node)
    kept, reduced = merged_dims(x.shape, axes)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    plan = (axes, tuple(n for n, _ in kept), tuple(s for _, s in kept), tuple(n for n, _ in reduced),
            tuple(s for _, s in reduced), count)
    if node.op != "sum" or x.dtype is DType.FLOAT32:
        return ReduceParams(*plan)
    multiplier, shift = quantize_multiplier(float(np.float32(x.scale)) / float(np.float32(out.scale)))
    return ReduceParams(*plan, -x.zero_point * count, multiplier, shift, out.zero_point)


def _rows(p: ReduceParams, x: np.ndarray) -> np.ndarray:
    """Each output's reduced elements, in the input's row-major order: [outputs, count]."""
    kept = [d for d in range(x.ndim) if d not in p.axes]
    return x.transpose(kept + list(p.axes)).reshape(-1, p.count)


def reference(node: Node, p: ReduceParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0])
    out = node.outputs[0]
    rows = _rows(p, x)
    if node.op == "reduce_all":
        return [rows.all(axis=1).reshape(out.shape)]
    if node.op in ("reduce_max", "reduce_min"):
        if x.dtype == np.float32:
            info = np.finfo(np.float32)
            acc = np.full(rows.shape[0], info.min if node.op == "reduce_max" else info.max, np.float32)
            for j in range(p.count):  # a NaN compares false: never taken, as in TFLite's reducer
                v = rows[:, j]
                acc = np.where(v > acc if node.op == "reduce_max" else v < acc, v, acc)
        else:
            acc = rows.max(axis=1) if node.op == "reduce_max" else rows.min(axis=1)
        return [acc.astype(out.dtype.np).reshape(out.shape)]
    if x.dtype == np.float32:
        acc = np.zeros(rows.shape[0], np.float32)
        for j in range(p.count):  # in order: numpy's own sums are pairwise
            acc = (acc + rows[:, j]).astype(np.float32)
        return [acc.reshape(out.shape)]
    sums = rows.astype(np.int64).sum(axis=1) + p.bias
    value = multiply_by_quantized_multiplier(sums, p.multiplier, p.shift) + p.output_zero_point
    info = np.iinfo(out.dtype.np)
    return [np.clip(value, info.min, info.max).astype(out.dtype.np).reshape(out.shape)]


def emit(node: Node, p: ReduceParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None

    def array(values: tuple[int, ...], hint: str) -> str:
        return em.const(np.array(values, dtype=np.int32), hint)

    fields: dict[str, int | str] = {
        "kept_rank": len(p.kept_shape), "kept_shape": array(p.kept_shape, "reduce_shape"),
        "kept_strides": array(p.kept_strides, "reduce_strides"),
        "reduced_rank": len(p.reduced_shape), "reduced_shape": array(p.reduced_shape, "reduce_shape"),
        "reduced_strides": array(p.reduced_strides, "reduce_strides")}
    if node.op == "sum" and x.dtype is not DType.FLOAT32:
        fields.update(bias=p.bias, multiplier=p.multiplier, shift=p.shift, output_zero_point=p.output_zero_point)
    return CCall(f"mote_{node.op}_{_SUFFIX[x.dtype]}", f"mote_reduce_{'quantized_' if 'bias' in fields else ''}params",
                 fields, [em.tensor(x), em.tensor(node.outputs[0])])


for _name, _builtin in (("reduce_max", "REDUCE_MAX"), ("reduce_min", "REDUCE_MIN"), ("sum", "SUM"),
                        ("reduce_all", "REDUCE_ALL")):
    register(OpDef(_name, shape, prepare, reference, emit, tflite=(_builtin,), check=check,
                   attrs={"keep_dims": False}, dtypes=DTYPES[_name]))
