"""ADD, SUB and MUL on int16 tensors, with numpy broadcasting and a fused activation, bit-exact with TFLite
Micro's int16 paths:

- ADD and SUB: the int8 arithmetic of mote.ops.add with 15 bits of headroom instead of 20 (TFLite's
  left_shift for int16 outputs): each input offset, shifted left 15, rescaled to twice the larger input
  scale; the sum or difference rescaled to the output, plus its zero point;
- MUL: MultiplyByQuantizedMultiplier((a - a_zp) * (b - b_zp)) + out_zp, where TFLite Micro requires every
  int16 zero point to be 0.
Then the clamp to the fused activation's range in int16. The C kernel is one element walk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.broadcast import Broadcast, broadcast_inputs, output_shape, plan_broadcast
from mote.ops.common import activation_range, smaller_than_one
from mote.ops.registry import CCall, Emitter, attr
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

LEFT_SHIFT = 15  # TFLite's headroom for int16 add/sub
CODES = {"add": "MOTE_ARITH_ADD", "sub": "MOTE_ARITH_SUB", "mul": "MOTE_ARITH_MUL"}


@dataclass(frozen=True)
class ArithS16Params:
    bcast: Broadcast
    a_offset: int  # -a zero point
    a_multiplier: int  # add/sub: to the common scale; mul: unused (0)
    a_shift: int
    b_offset: int
    b_multiplier: int
    b_shift: int
    out_offset: int  # output zero point
    out_multiplier: int
    out_shift: int
    act_min: int
    act_max: int


def check(node: Node) -> None:
    checks.input_count(node, 2)
    for index, role in ((0, "first input"), (1, "second input")):
        t = checks.present(node, index, role)
        checks.dtype(node, t, role, DType.INT16)
        checks.quantized(node, t, role)
    out = node.outputs[0]
    checks.dtype(node, out, "output", DType.INT16)
    checks.quantized(node, out, "output")
    checks.activation(node)
    output_shape(node)
    if node.op == "mul":
        for t in (*node.inputs, out):
            assert t is not None
            if t.zero_point != 0:
                raise checks.fail(node, f"the int16 tensor {t.name!r} has zero point {t.zero_point}; TFLite Micro's "
                                        "int16 MUL requires 0")


def prepare(node: Node) -> ArithS16Params:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    assert a is not None and b is not None
    act = activation_range(attr(node, "activation"), out)
    if node.op == "mul":
        m, s = quantize_multiplier(a.scale * b.scale / out.scale)
        return ArithS16Params(plan_broadcast(node), -a.zero_point, 0, 0, -b.zero_point, 0, 0, out.zero_point, m, s,
                              *act)
    twice_max = 2.0 * max(a.scale, b.scale)
    a_m = smaller_than_one(node, a.scale / twice_max, "first input")
    b_m = smaller_than_one(node, b.scale / twice_max, "second input")
    out_m = smaller_than_one(node, twice_max / ((1 << LEFT_SHIFT) * out.scale), "output")
    return ArithS16Params(plan_broadcast(node), -a.zero_point, *a_m, -b.zero_point, *b_m, out.zero_point, *out_m,
                          *act)


def reference(node: Node, p: ArithS16Params, inputs: list[np.ndarray]) -> list[np.ndarray]:
    a, b = (np.asarray(v, np.int64) for v in broadcast_inputs(node, inputs))
    if node.op == "mul":
        raw = (a + p.a_offset) * (b + p.b_offset)
    else:
        a = multiply_by_quantized_multiplier((a + p.a_offset) << LEFT_SHIFT, p.a_multiplier, p.a_shift)
        b = multiply_by_quantized_multiplier((b + p.b_offset) << LEFT_SHIFT, p.b_multiplier, p.b_shift)
        raw = a + b if node.op == "add" else a - b
    out = multiply_by_quantized_multiplier(raw, p.out_multiplier, p.out_shift) + p.out_offset
    return [np.clip(out, p.act_min, p.act_max).astype(np.int16).reshape(node.outputs[0].shape)]


def emit(node: Node, p: ArithS16Params, em: Emitter) -> CCall:
    a, b = node.inputs[0], node.inputs[1]
    assert a is not None and b is not None
    fields: dict[str, int | str] = {**p.bcast.fields(em), "operation": CODES[node.op],
                                    **{k: v for k, v in vars(p).items() if k != "bcast"}}
    return CCall("mote_arith_s16", "mote_arith_s16_params", fields,
                 [em.tensor(a), em.tensor(b), em.tensor(node.outputs[0])])


ROW = (check, prepare, reference, emit)  # the ops' BY_DTYPE rows
