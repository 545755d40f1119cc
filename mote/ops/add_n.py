"""ADD_N: the element-wise sum of N same-shaped tensors, float32 or int8, as TFLite Micro computes it.

float32: each sum starts at 0 and adds the inputs in order. int8 (every input quantized alike): ADD's
arithmetic with a single input scale, each input rescaled to twice its scale with 20 bits of headroom,
    acc = scaled(input_offset) + sum_j scaled(x_j + input_offset),  scaled(v) = MBQM<1(v << 20, m_in, s_in)
    out = clamp(MBQM<1(acc, m_out, s_out) + out_zp)
where the sum starts from the rescaled input offset (not 0), as the interpreter's does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.common import activation_range, smaller_than_one
from mote.ops.registry import CCall, Emitter, OpDef, dtype_columns, register
from mote.quant import multiply_by_quantized_multiplier

LEFT_SHIFT = 20


@dataclass(frozen=True)
class AddNParams:
    count: int  # inputs
    size: int  # elements each
    input_offset: int = 0
    input_multiplier: int = 0
    input_shift: int = 0
    output_offset: int = 0
    output_multiplier: int = 0
    output_shift: int = 0
    act_min: int = 0
    act_max: int = 0


def check(node: Node) -> None:
    if len(node.inputs) < 2 or len(node.outputs) != 1:
        raise checks.fail(node, f"has {len(node.inputs)} inputs and {len(node.outputs)} outputs; ADD_N takes at "
                                "least 2 and gives 1")
    first = checks.present(node, 0, "first input")
    checks.dtype(node, first, "first input", DType.FLOAT32, DType.INT8)
    for k, t in enumerate(node.inputs):
        t = checks.present(node, k, f"input {k}")
        checks.dtype(node, t, f"input {k}", first.dtype)
        if t.shape != first.shape:
            raise checks.fail(node, f"input {k} {list(t.shape)} differs in shape from the first {list(first.shape)}")
        if first.dtype is DType.INT8:
            checks.quantized(node, t, f"input {k}")
            if (t.scale, t.zero_point) != (first.scale, first.zero_point):
                raise checks.fail(node, "TFLite Micro's int8 ADD_N needs every input quantized alike")
    checks.dtype(node, node.outputs[0], "output", first.dtype)
    if first.dtype is DType.INT8:
        checks.quantized(node, node.outputs[0], "output")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def prepare_f32(node: Node) -> AddNParams:
    x = node.inputs[0]
    assert x is not None
    return AddNParams(len(node.inputs), x.size)


def rescaling(node: Node) -> tuple[int, ...]:
    """The int8 rescaling ADD_N and CUMSUM share: (input offset, multiplier, shift, output offset, multiplier,
    shift, clamp range), from the first input's and the output's quantization."""
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    twice = 2.0 * x.scale
    m_in = smaller_than_one(node, x.scale / twice, "input")
    m_out = smaller_than_one(node, twice / ((1 << LEFT_SHIFT) * out.scale), "output")
    return (-x.zero_point, *m_in, out.zero_point, *m_out, *activation_range("NONE", out))


def prepare_s8(node: Node) -> AddNParams:
    x = node.inputs[0]
    assert x is not None
    return AddNParams(len(node.inputs), x.size, *rescaling(node))


def reference_f32(node: Node, p: AddNParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    total = np.zeros(node.outputs[0].shape, np.float32)
    for x in inputs:
        total = (total + np.asarray(x, np.float32).reshape(total.shape)).astype(np.float32)
    return [total]


def reference_s8(node: Node, p: AddNParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    def scaled(v: np.ndarray) -> np.ndarray:
        return multiply_by_quantized_multiplier(np.asarray(v, np.int64) << LEFT_SHIFT, p.input_multiplier,
                                                p.input_shift)
    acc = scaled(np.full(node.outputs[0].shape, p.input_offset))
    for x in inputs:
        acc = acc + scaled(np.asarray(x, np.int64).reshape(acc.shape) + p.input_offset)
    out = multiply_by_quantized_multiplier(acc, p.output_multiplier, p.output_shift) + p.output_offset
    return [np.clip(out, p.act_min, p.act_max).astype(np.int8)]


def _emit(node: Node, p: AddNParams, em: Emitter, suffix: str, c_type: str) -> CCall:
    pointers = ", ".join(em.tensor(t) for t in node.inputs if t is not None)
    fields: dict[str, int | str] = dict(vars(p)) if suffix == "s8" else {"count": p.count, "size": p.size}
    return CCall(f"mote_add_n_{suffix}", f"mote_add_n_{suffix}_params", fields,
                 [f"(const {c_type} *const[]){{{pointers}}}", em.tensor(node.outputs[0])])


def emit_f32(node: Node, p: AddNParams, em: Emitter) -> CCall:
    return _emit(node, p, em, "f32", "float")


def emit_s8(node: Node, p: AddNParams, em: Emitter) -> CCall:
    return _emit(node, p, em, "s8", "int8_t")


BY_DTYPE = {DType.FLOAT32: (check, prepare_f32, reference_f32, emit_f32),
            DType.INT8: (check, prepare_s8, reference_s8, emit_s8)}
_check, _prepare, _reference, _emit_any = dtype_columns(BY_DTYPE)
OP = register(OpDef("add_n", shape, _prepare, _reference, _emit_any, tflite=("ADD_N",), check=_check,
                    dtypes=tuple(BY_DTYPE)))
