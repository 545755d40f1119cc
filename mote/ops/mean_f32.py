"""MEAN in float32 over constant axes, keep_dims or not.

Bit-exact with TFLite Micro's float MEAN (the 4-D axes (1, 2) kernel and the general one agree): each
output sums its reduced elements from 0 in the input's row-major order, then divides by their count
as a float. The kernel walks the kept and reduced dimensions as mean.py plans them for int8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.float_common import c_float, float_activation
from mote.ops.reduce_plan import MAX_DIMS, merged_dims, resolved_axes
from mote.ops.registry import CCall, Emitter, attr


@dataclass(frozen=True)
class MeanF32Params:
    axes: tuple[int, ...]  # resolved, unique, ascending
    kept_shape: tuple[int, ...]  # as MeanParams
    kept_strides: tuple[int, ...]
    reduced_shape: tuple[int, ...]
    reduced_strides: tuple[int, ...]
    count: int  # reduced elements per output


def check(node: Node) -> None:
    checks.input_count(node, 2)
    x = float_activation(node, node.inputs[0], "input")
    axes = checks.present(node, 1, "axes")
    checks.dtype(node, axes, "axes", DType.INT32)
    checks.constant(node, axes, "axes")
    float_activation(node, node.outputs[0], "output")
    if not isinstance(attr(node, "keep_dims"), bool):
        raise checks.fail(node, "attribute keep_dims must be true or false")
    kept, reduced = merged_dims(x.shape, resolved_axes(node))
    if max(len(kept), len(reduced)) > MAX_DIMS:
        raise checks.fail(node, f"{len(x.shape)}-D input with these axes needs more than {MAX_DIMS} loops")


def prepare(node: Node) -> MeanF32Params:
    x = node.inputs[0]
    assert x is not None
    axes = resolved_axes(node)
    kept, reduced = merged_dims(x.shape, axes)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return MeanF32Params(axes, tuple(n for n, _ in kept), tuple(s for _, s in kept), tuple(n for n, _ in reduced),
                         tuple(s for _, s in reduced), count)


def reference(node: Node, p: MeanF32Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0], np.float32)
    kept = [d for d in range(x.ndim) if d not in p.axes]
    rows = x.transpose(kept + list(p.axes)).reshape(-1, p.count)  # each output's elements in row-major order
    total = np.zeros(rows.shape[0], np.float32)
    for j in range(p.count):  # TFLite's order; numpy's own sums are pairwise
        total = (total + rows[:, j]).astype(np.float32)
    if p.count:
        total = (total / np.float32(p.count)).astype(np.float32)
    return [total.reshape(node.outputs[0].shape)]


def emit(node: Node, p: MeanF32Params, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None

    def array(values: tuple[int, ...], hint: str) -> str:
        return em.const(np.array(values, dtype=np.int32), hint)

    fields: dict[str, int | str] = {
        "kept_rank": len(p.kept_shape), "kept_shape": array(p.kept_shape, "mean_shape"),
        "kept_strides": array(p.kept_strides, "mean_strides"),
        "reduced_rank": len(p.reduced_shape), "reduced_shape": array(p.reduced_shape, "mean_shape"),
        "reduced_strides": array(p.reduced_strides, "mean_strides"), "count": c_float(p.count)}
    return CCall("mote_mean_f32", "mote_mean_f32_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])
