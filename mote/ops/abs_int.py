"""ABS on int8 and int16, as TFLite Micro's AbsEvalQuantized computes it:
    value = |x - in_zp|;  out = clamp(value + out_zp) when the scales are equal, else
    out = clamp(MultiplyByQuantizedMultiplier(value, QuantizeMultiplier(double(float(s_in / s_out)))) + out_zp)
to the type's range (int16 zero points must be 0). An unquantized int16 ABS is the raw |x|, wrapping at
-32768 as the interpreter's cast back to int16 does."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier


@dataclass(frozen=True)
class AbsIntParams:
    size: int
    input_offset: int  # input zero point
    output_offset: int
    rescale: int  # 1: the scales differ
    multiplier: int
    shift: int
    out_min: int  # the type's range; an unquantized int16 input wraps instead (wrap = 1)
    out_max: int
    wrap: int
    wide: int  # 1: int16


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    out = node.outputs[0]
    checks.dtype(node, x, "input", DType.INT8, DType.INT16)
    checks.dtype(node, out, "output", x.dtype)
    if x.dtype is DType.INT16 and x.quant is None:
        return
    for t, role in ((x, "input"), (out, "output")):
        checks.quantized(node, t, role)
        if t.dtype is DType.INT16 and t.zero_point != 0:
            raise checks.fail(node, f"the int16 {role} {t.name!r} has zero point {t.zero_point}; TFLite Micro "
                                    "requires 0")


def prepare(node: Node) -> AbsIntParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    info = np.iinfo(x.dtype.np)
    wide = int(x.dtype is DType.INT16)
    if x.quant is None:
        return AbsIntParams(x.size, 0, 0, 0, 0, 0, int(info.min), int(info.max), 1, wide)
    rescale = float(np.float32(x.scale)) != float(np.float32(out.scale))
    multiplier, shift = quantize_multiplier(float(np.float32(x.scale) / np.float32(out.scale))) if rescale else (0, 0)
    return AbsIntParams(x.size, x.zero_point, out.zero_point, int(rescale), multiplier, shift, int(info.min),
                        int(info.max), 0, wide)


def reference(node: Node, p: AbsIntParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out_type = node.outputs[0].dtype.np
    value = np.abs(np.asarray(inputs[0], np.int64) - p.input_offset)
    if p.wrap:
        return [value.astype(out_type)]
    if p.rescale:
        value = multiply_by_quantized_multiplier(value, p.multiplier, p.shift)
    return [np.clip(value + p.output_offset, p.out_min, p.out_max).astype(out_type)]


def emit(node: Node, p: AbsIntParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    return CCall("mote_abs_int", "mote_abs_int_params", dict(vars(p)), [em.tensor(x), em.tensor(node.outputs[0])])
