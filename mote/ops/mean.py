"""MEAN: int8 average over constant axes, keep_dims or not, requantized to the output quantization.

Bit-exact with TFLite Micro's int8 MEAN, which takes one path for every axes combination
(reference_ops::QuantizedMeanOrSum; unlike float, there is no special 4-D axes (1, 2) kernel):
    sum  = int32 sum of the raw int8 inputs over the reduced axes (duplicates count once), n of them
    out  = clamp(MultiplyByQuantizedMultiplier(int32(sum - in_zp * n), multiplier', shift') + out_zp)
where (multiplier, shift) = QuantizeMultiplier(double(s_in) / double(s_out)) and 1/n is folded in:
    k = min(floor(log2 n), 32, 31 + shift);  multiplier' = (multiplier << k) / n (int64, truncating);
    shift' = shift - k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.fixedpoint import wrap32
from mote.ir import Node
from mote.ops import checks
from mote.ops.add import quantized_int8
from mote.ops.registry import CCall, Emitter, OpDef, attr, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

MAX_DIMS = 8  # MOTE_MEAN_MAX_DIMS in mote_mean_s8.h


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


def resolved_axes(node: Node) -> tuple[int, ...]:
    """The reduced axes, non-negative and without duplicates (TFLite's ResolveAxis)."""
    x, axes = node.inputs[0], node.inputs[1] if len(node.inputs) > 1 else None
    assert x is not None
    if axes is None or axes.data is None:
        raise UnsupportedError(f"node {node.name!r} (mean): the axes must be a constant tensor")
    rank = len(x.shape)
    resolved = []
    for a in np.asarray(axes.data, dtype=np.int64).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise UnsupportedError(f"node {node.name!r} (mean): axis {a} is out of range for a {rank}-D input")
        resolved.append(a % rank)
    return tuple(sorted(set(resolved)))


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    axes = resolved_axes(node)
    if attr(node, "keep_dims"):
        return [tuple(1 if d in axes else n for d, n in enumerate(x.shape))]
    return [tuple(n for d, n in enumerate(x.shape) if d not in axes)]


def merged_dims(in_shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[list[list[int]], list[list[int]]]:
    """([extent, stride] of kept dims, same for reduced dims); neighbours of one kind merge into one."""
    strides = [int(np.prod(in_shape[d + 1:], dtype=np.int64)) for d in range(len(in_shape))]
    kept: list[list[int]] = []
    reduced: list[list[int]] = []
    previous = None
    for d, n in enumerate(in_shape):
        if n == 1:
            continue
        group = reduced if d in axes else kept
        if previous is group:  # contiguous with the dimension before: one longer dimension
            group[-1] = [group[-1][0] * n, strides[d]]
        else:
            group.append([n, strides[d]])
        previous = group
    return kept or [[1, 0]], reduced or [[1, 0]]


def prepare(node: Node) -> MeanParams:
    x, out = quantized_int8(node, node.inputs[0]), quantized_int8(node, node.outputs[0])
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
    return [np.clip(out, -128, 127).astype(np.int8).reshape(node.outputs[0].shape)]


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
    return CCall("mote_mean_s8", "mote_mean_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


def macs(node: Node) -> int:
    """One accumulation per input element."""
    x = node.inputs[0]
    assert x is not None
    return x.size


def check(node: Node) -> None:
    checks.int8_with_int32_constant(node, "axes")
    if not isinstance(attr(node, "keep_dims"), bool):
        raise checks.fail(node, "attribute keep_dims must be true or false")


OP = register(OpDef("mean", shape, prepare, reference, emit, macs=macs, tflite=("MEAN",), check=check,
                    attrs={"keep_dims": False}))
