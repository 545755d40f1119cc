"""QUANTIZE: float32 -> int8 (AffineQuantize), or int8 -> int8 with new quantization (Requantize).

Bit-exact with TFLite Micro's reference kernels:
  - float32 -> int8: out = clamp(int(round(x / scale)) + zero_point, -128, 127), the division in float32
    and round() halves away from zero. (For |x / scale| >= 2^31 or NaN TFLite's float-to-int cast is
    undefined; mote saturates: NaN and large negatives give -128, large positives 127.)
  - int8 -> int8: out = clamp(MultiplyByQuantizedMultiplier(x - in_zp, multiplier, shift) + out_zp)
    with (multiplier, shift) = QuantizeMultiplier(double(s_in) / double(s_out)).
The C kernels use no libm: the float rounding is done by hand (mote_quantize_f32_s8.c). On a host
with AVX-512 VNNI (Core.VNNI), the table KERNELS picks mote_quantize_f32_s8_vnni: the same steps on
sixteen floats at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.add import quantized_int8
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

# Below this output scale, float inputs of ordinary magnitude (> 2^31 * scale) overflow TFLite Micro's
# int32 conversion, which is undefined behaviour; no real model quantizes so finely.
MIN_FLOAT_INPUT_SCALE = 2.0**-20


@dataclass(frozen=True)
class QuantizeParams:
    """float32 -> int8."""

    size: int
    scale: float  # the output scale, a float32 value
    zero_point: int


@dataclass(frozen=True)
class RequantizeParams:
    """int8 -> int8."""

    size: int
    input_zero_point: int
    output_zero_point: int
    multiplier: int  # Q31
    shift: int  # > 0: left


def prepare(node: Node) -> QuantizeParams | RequantizeParams:
    x, out = node.inputs[0], quantized_int8(node, node.outputs[0])
    assert x is not None
    if x.dtype is DType.FLOAT32:
        return QuantizeParams(x.size, float(np.float32(out.scale)), out.zero_point)
    if x.dtype is DType.INT8:
        x = quantized_int8(node, x)
        multiplier, shift = quantize_multiplier(x.scale / out.scale)
        return RequantizeParams(x.size, x.zero_point, out.zero_point, multiplier, shift)
    raise UnsupportedError(f"node {node.name!r} (quantize): input {x.name!r} is {x.dtype.value}; mote quantizes "
                           "float32 or int8 inputs to int8")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def round_half_away_f32(q: np.ndarray) -> np.ndarray:
    """roundf: float32 values to the nearest integer (as float64), halves away from zero."""
    q = np.asarray(q, dtype=np.float32)
    t = np.trunc(q)
    frac = q - t  # exact in float32
    return t.astype(np.float64) + (frac >= 0.5) - (frac <= -0.5)


def quantize_f32(p: QuantizeParams, x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        q = np.asarray(x, dtype=np.float32) / np.float32(p.scale)
        r = round_half_away_f32(q) + p.zero_point
        low = ~(r > -128)  # NaN included
    return np.where(low, -128, np.clip(np.where(low, 0, r), -128, 127)).astype(np.int8)


def reference(node: Node, p: QuantizeParams | RequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if isinstance(p, QuantizeParams):
        return [quantize_f32(p, inputs[0])]
    d = np.asarray(inputs[0], dtype=np.int64) - p.input_zero_point
    out = multiply_by_quantized_multiplier(d, p.multiplier, p.shift) + p.output_zero_point
    return [np.clip(out, -128, 127).astype(np.int8)]


def _args(node: Node, em: Emitter) -> list[str]:
    x = node.inputs[0]
    assert x is not None
    return [em.tensor(x), em.tensor(node.outputs[0])]


def _float_fields(p: QuantizeParams) -> dict[str, int | str]:
    return {"size": p.size, "scale": f"{p.scale.hex()}f", "zero_point": p.zero_point}


def _pack_vnni(node: Node, p: QuantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_f32_s8_vnni", "mote_quantize_params", _float_fields(p), _args(node, em))


def _pack_float(node: Node, p: QuantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_f32_s8", "mote_quantize_params", _float_fields(p), _args(node, em))


def _pack_requantize(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    return CCall("mote_requantize_s8", "mote_requantize_params", dict(vars(p)), _args(node, em))


def _accepts_float(node: Node, p: QuantizeParams | RequantizeParams) -> str | None:
    return None if isinstance(p, QuantizeParams) else "int8 input"


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    checks.dtype(node, x, "input", DType.FLOAT32, DType.INT8)
    if x.dtype is DType.INT8:
        checks.int8_activation(node, x, "input")
    out = checks.int8_activation(node, node.outputs[0], "output")
    if x.dtype is DType.FLOAT32 and out.scale < MIN_FLOAT_INPUT_SCALE:
        raise checks.fail(node, f"output scale {out.scale:g} is below {MIN_FLOAT_INPUT_SCALE:g}: TFLite Micro's "
                                "float-to-int32 conversion would overflow, with undefined results, for inputs "
                                f"beyond {2**31 * out.scale:g}")


KERNELS = (
    Kernel("mote_quantize_f32_s8_vnni", frozenset({Core.VNNI}), _pack_vnni, _accepts_float),
    Kernel("mote_quantize_f32_s8", frozenset(Core), _pack_float, _accepts_float),
    Kernel("mote_requantize_s8", frozenset(Core), _pack_requantize),
)


OP = register(OpDef("quantize", shape, prepare, reference, _pack_requantize, tflite=("QUANTIZE",), check=check,
                    kernels=KERNELS, dtypes=(DType.INT8, DType.FLOAT32)))
