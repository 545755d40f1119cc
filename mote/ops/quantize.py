"""QUANTIZE: float32 -> int8 or int16 (AffineQuantize), or integer -> integer with new quantization
(Requantize) for the pairs TFLite Micro runs (REQUANTIZE_PAIRS).

Bit-exact with TFLite Micro's reference kernels:
  - float32 -> int8/int16: out = clamp(int(round(x / scale)) + zero_point), the division in float32
    and round() halves away from zero. (For |x / scale| >= 2^31 or NaN TFLite's float-to-int cast is
    undefined; mote saturates: NaN and large negatives give the type's minimum, large positives its maximum.)
    With the attribute round_half_even (set by the ONNX frontend: QuantizeLinear as onnxruntime computes
    it) halves go to the even neighbour instead (int8 outputs only; mote_quantize_f32_s8_even.c).
  - integer -> integer: out = clamp(MultiplyByQuantizedMultiplier(x - in_zp, multiplier, shift) + out_zp)
    to the output type, with (multiplier, shift) = QuantizeMultiplier(double(s_in) / double(s_out)). (The
    interpreter's int8 <-> uint8 shortcut, x ^ 0x80, gives the same values.)
The C kernels use no libm: the float rounding is done by hand (mote_quantize_f32_s8.c). On a host
with AVX-512 VNNI (Core.VNNI), the table KERNELS picks mote_quantize_f32_s8_vnni (for halves to even
mote_quantize_f32_s8_even_vnni): the same steps on sixteen floats at a time; int8 <-> uint8 at the same scale
(a model's uint8 boundary) is mote_quantize_flip_u8, x ^ 0x80.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Core, Emitter, Kernel, OpDef, Overlap, attr, register
from mote.quant import multiply_by_quantized_multiplier, quantize_multiplier

# Below this output scale, float inputs of ordinary magnitude (> 2^31 * scale) overflow TFLite Micro's
# int32 conversion, which is undefined behaviour; no real model quantizes so finely.
MIN_FLOAT_INPUT_SCALE = 2.0**-20


_INT8, _UINT8, _INT16, _INT32 = DType.INT8, DType.UINT8, DType.INT16, DType.INT32
# (input, output) integer dtypes TFLite Micro's QUANTIZE requantizes between
REQUANTIZE_PAIRS = {(_INT8, _INT8), (_INT8, _UINT8), (_UINT8, _INT8), (_INT8, _INT16), (_INT8, _INT32),
                    (_INT16, _INT8), (_INT16, _INT16), (_INT16, _INT32), (_INT32, _INT8), (_INT32, _INT16)}
# the element type codes of mote_requantize_int (mote_requantize_int.h)
TYPE_CODES = {_INT8: 0, _UINT8: 1, _INT16: 2, _INT32: 3}


@dataclass(frozen=True)
class QuantizeParams:
    """float32 -> int8 or int16."""

    size: int
    scale: float  # the output scale, a float32 value
    zero_point: int
    low: int = -128  # the output type's range
    high: int = 127
    half_even: bool = False  # ONNX's QuantizeLinear: halves to even (else TFLite's: away from zero)


@dataclass(frozen=True)
class RequantizeParams:
    """integer -> integer."""

    size: int
    input_zero_point: int
    output_zero_point: int
    multiplier: int  # Q31
    shift: int  # > 0: left
    input_type: DType = _INT8
    output_type: DType = _INT8


def _range(dtype: DType) -> tuple[int, int]:
    info = np.iinfo(dtype.np)
    return int(info.min), int(info.max)


def prepare(node: Node) -> QuantizeParams | RequantizeParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None and out.quant is not None
    if x.dtype is DType.FLOAT32:
        return QuantizeParams(x.size, float(np.float32(out.scale)), out.zero_point, *_range(out.dtype),
                              bool(attr(node, "round_half_even")))
    if (x.dtype, out.dtype) in REQUANTIZE_PAIRS and x.quant is not None:
        multiplier, shift = quantize_multiplier(x.scale / out.scale)
        return RequantizeParams(x.size, x.zero_point, out.zero_point, multiplier, shift, x.dtype, out.dtype)
    raise UnsupportedError(f"node {node.name!r} (quantize): {x.dtype.value} to {out.dtype.value} is not a "
                           "conversion TFLite Micro's QUANTIZE makes")


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
        rounded = np.rint(q).astype(np.float64) if p.half_even else round_half_away_f32(q)  # rint: to even
        r = rounded + p.zero_point
        low = ~(r > p.low)  # NaN included
    return np.where(low, p.low, np.clip(np.where(low, 0, r), p.low, p.high))


def reference(node: Node, p: QuantizeParams | RequantizeParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out_type = node.outputs[0].dtype.np
    if isinstance(p, QuantizeParams):
        return [quantize_f32(p, inputs[0]).astype(out_type)]
    d = (np.asarray(inputs[0], dtype=np.int64) - p.input_zero_point + 2**31) % 2**32 - 2**31  # int32 wraps
    out = multiply_by_quantized_multiplier(d, p.multiplier, p.shift) + p.output_zero_point
    out = (out + 2**31) % 2**32 - 2**31
    return [np.clip(out, *_range(p.output_type)).astype(out_type)]


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


def _pack_even(node: Node, p: QuantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_f32_s8_even", "mote_quantize_params", _float_fields(p), _args(node, em))


def _pack_even_vnni(node: Node, p: QuantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_f32_s8_even_vnni", "mote_quantize_params", _float_fields(p), _args(node, em))


def _pack_float_s16(node: Node, p: QuantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_f32_s16", "mote_quantize_params", _float_fields(p), _args(node, em))


def _requantize_fields(p: RequantizeParams) -> dict[str, int | str]:
    return {"size": p.size, "input_zero_point": p.input_zero_point, "output_zero_point": p.output_zero_point,
            "multiplier": p.multiplier, "shift": p.shift}


def _pack_requantize(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    return CCall("mote_requantize_s8", "mote_requantize_params", _requantize_fields(p), _args(node, em))


TABLE_MIN_SIZE = 64  # values; from here a 256-byte table (about 5 instructions a value on a scalar core, against
# about 40 through the requantization) saves over 2,000 instructions per call


def _accepts_table(node: Node, p: QuantizeParams | RequantizeParams) -> str | None:
    if (why := _accepts_s8(node, p)) is not None:
        return why
    return None if p.size >= TABLE_MIN_SIZE else f"{p.size} values, under {TABLE_MIN_SIZE}: not worth a table"


def _pack_table(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    """int8 -> int8 through a table (mote_requantize_table_s8, mote_lut_s8's): the reference's output for each
    input byte, indexed by (uint8) x."""
    values = reference(node, p, [np.arange(-128, 128)])[0].astype(np.int8)
    table = np.roll(values, -128)  # byte b < 128 is x = b, byte b >= 128 is x = b - 256
    return CCall("mote_requantize_table_s8", "mote_lut_s8_params",
                 {"size": p.size, "table": em.const(table, "requantize_table")},
                 _args(node, em))


def _pack_requantize_int(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    low, high = _range(p.output_type)
    fields = {**_requantize_fields(p), "input_type": TYPE_CODES[p.input_type],
              "output_type": TYPE_CODES[p.output_type], "output_min": low, "output_max": high}
    return CCall("mote_requantize_int", "mote_requantize_int_params", fields, _args(node, em))


def _pack_flip(node: Node, p: RequantizeParams, em: Emitter) -> CCall:
    return CCall("mote_quantize_flip_u8", "mote_quantize_flip_params", {"size": p.size}, _args(node, em))


def _accepts_flip(node: Node, p: QuantizeParams | RequantizeParams) -> str | None:
    """int8 <-> uint8 at the same scale (TFLM's own test for it: multiplier 2^30, shift 1), zero points 128
    apart the right way: x - in_zp + out_zp is x -/+ 128, which never clamps."""
    if not isinstance(p, RequantizeParams) or {p.input_type, p.output_type} != {_INT8, _UINT8}:
        return "not between int8 and uint8"
    step = 128 if p.output_type is _UINT8 else -128
    if (p.multiplier, p.shift) != (1 << 30, 1) or p.output_zero_point - p.input_zero_point != step:
        return "scales differ or zero points not 128 apart"
    return None


def _flip_overlap(node: Node, p: QuantizeParams | RequantizeParams) -> list[tuple[int, Overlap]]:
    return [(0, Overlap(at_most=0))]  # each byte is read before it is written, in order


def _accepts_float_to(high: int, half_even: bool = False
                      ) -> Callable[[Node, QuantizeParams | RequantizeParams], str | None]:
    def accepts(node: Node, p: QuantizeParams | RequantizeParams) -> str | None:
        if not isinstance(p, QuantizeParams):
            return "integer input"
        if p.half_even != half_even:
            return "halves round to even (ONNX)" if p.half_even else "halves round away from zero"
        return None if p.high == high else f"{node.outputs[0].dtype.value} output"
    return accepts


def _accepts_s8(node: Node, p: QuantizeParams | RequantizeParams) -> str | None:
    both = isinstance(p, RequantizeParams) and p.input_type is p.output_type is _INT8
    return None if both else "not int8 to int8"


def check(node: Node) -> None:
    checks.input_count(node, 1)
    x = checks.present(node, 0, "input")
    out = node.outputs[0]
    checks.dtype(node, x, "input", DType.FLOAT32, *TYPE_CODES)
    if x.dtype is DType.FLOAT32:
        checks.dtype(node, out, "output", _INT8, _INT16)
        if attr(node, "round_half_even") and out.dtype is not _INT8:
            raise checks.fail(node, "rounding halves to even is implemented for int8 outputs only")
    elif (x.dtype, out.dtype) not in REQUANTIZE_PAIRS:
        raise checks.fail(node, f"{x.dtype.value} to {out.dtype.value} is not a conversion TFLite Micro's "
                                "QUANTIZE makes")
    elif x.quant is None:
        raise checks.fail(node, f"the {x.dtype.value} input {x.name!r} has no quantization (scale and zero point): "
                                "TFLite Micro would take its scale as 0 and write the output zero point everywhere; "
                                "give the input its scale and zero point")
    else:
        checks.quantized(node, x, "input")
    checks.quantized(node, out, "output")
    if x.dtype is DType.FLOAT32 and out.scale < MIN_FLOAT_INPUT_SCALE:
        raise checks.fail(node, f"output scale {out.scale:g} is below {MIN_FLOAT_INPUT_SCALE:g}: TFLite Micro's "
                                "float-to-int32 conversion would overflow, with undefined results, for inputs "
                                f"beyond {2**31 * out.scale:g}")


KERNELS = (
    Kernel("mote_quantize_f32_s8_vnni", frozenset({Core.VNNI}), _pack_vnni, _accepts_float_to(127)),
    Kernel("mote_quantize_f32_s8", frozenset(Core), _pack_float, _accepts_float_to(127)),
    Kernel("mote_quantize_f32_s8_even_vnni", frozenset({Core.VNNI}), _pack_even_vnni,
           _accepts_float_to(127, half_even=True)),
    Kernel("mote_quantize_f32_s8_even", frozenset(Core), _pack_even, _accepts_float_to(127, half_even=True)),
    Kernel("mote_quantize_f32_s16", frozenset(Core), _pack_float_s16, _accepts_float_to(32767)),
    Kernel("mote_requantize_table_s8", frozenset(Core), _pack_table, _accepts_table),
    Kernel("mote_requantize_s8", frozenset(Core), _pack_requantize, _accepts_s8),
    Kernel("mote_quantize_flip_u8", frozenset(Core), _pack_flip, _accepts_flip, overlap=_flip_overlap),
    Kernel("mote_requantize_int", frozenset(Core), _pack_requantize_int),
)


OP = register(OpDef("quantize", shape, prepare, reference, _pack_requantize, tflite=("QUANTIZE",), check=check,
                    kernels=KERNELS, attrs={"round_half_even": False},
                    dtypes=(DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.FLOAT32)))
