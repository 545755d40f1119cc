"""REQUANT_SHIFT: integer-dialect requantization (QuantLib / Deeploy's RequantShift), exact.

    y = clip(floor((v * mul[c] + add[c]) / divisor + 1/2), lo, hi),   v = x - input_zero_point
computed in 64-bit integers as floor((2 * (v * mul + add) + divisor) / (2 * divisor)); [lo, hi] is the
signed ([-floor(n/2), floor(n/2) - 1], as Deeploy's templates clamp: for odd n one level short of
symmetric) or unsigned ([0, n-1]) range of n_levels levels. The int8 output stores
y + output_zero_point (0 when signed, -128 when unsigned, so that [0, 255] fits int8).
c runs over the last axis (`channels` values; 1: per tensor; the whole size: per element).
With ties "away" an exact half rounds away from zero instead of up (Deeploy's integer mean over a length that
is not a power of two: its kernel divides (sum + sign * (n >> 1)) / n, truncating).

inputs [x int8 | int32, mul int32 [channels], add int32 [channels]]; attrs divisor (> 0),
n_levels (<= 256), signed, ties ("up" or "away"). The output tensor's zero point must be 0 (signed) or -128 (unsigned).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops.registry import REQUIRED, CCall, Emitter, OpDef, attr, register

INT64_MAX = 2**63 - 1


@dataclass(frozen=True, eq=False)
class RequantShiftParams:
    size: int
    channels: int
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    act_min: int  # lo, before the output offset
    act_max: int  # hi
    divisor: int
    shift: int  # log2(divisor) when it is a power of two (the C kernel then shifts), else -1
    mul: np.ndarray  # int32 [channels]
    add: np.ndarray  # int32 [channels]
    ties_away: bool = False  # exact halves away from zero, not up


def level_range(n_levels: int, signed: bool) -> tuple[int, int]:
    """Deeploy's output_min / output_max: -(n // 2) and n // 2 - 1 when signed (an odd n's top level unused)."""
    return (-(n_levels // 2), n_levels // 2 - 1) if signed else (0, n_levels - 1)


def prepare(node: Node) -> RequantShiftParams:
    x, mul, add, out = node.inputs[0], node.inputs[1], node.inputs[2], node.outputs[0]
    assert x is not None and mul is not None and add is not None
    if x.dtype not in (DType.INT8, DType.INT32) or out.dtype is not DType.INT8:
        raise UnsupportedError(f"node {node.name!r} (requant_shift): int8 or int32 in, int8 out")
    if mul.data is None or add.data is None:
        raise UnsupportedError(f"node {node.name!r} (requant_shift): mul and add must be constants")
    m = np.asarray(mul.data, np.int64).reshape(-1)
    a = np.asarray(add.data, np.int64).reshape(-1)
    channels = max(m.size, a.size)
    last = x.shape[-1] if x.shape else 1
    if m.size not in (1, channels) or a.size not in (1, channels) or channels not in (1, last, x.size):
        raise UnsupportedError(f"node {node.name!r} (requant_shift): mul/add of {m.size}/{a.size} values do not "
                               f"broadcast over the last axis of {list(x.shape)}")
    divisor, n_levels, signed = int(attr(node, "divisor")), int(attr(node, "n_levels")), bool(attr(node, "signed"))
    lo, hi = level_range(n_levels, signed)
    out_zp = 0 if out.quant is None else out.quant.zero_point[0]
    if divisor <= 0 or not -128 <= lo + out_zp <= hi + out_zp <= 127:
        raise UnsupportedError(f"node {node.name!r} (requant_shift): divisor {divisor} and {n_levels} "
                               f"{'signed' if signed else 'unsigned'} levels do not fit an int8 output")
    in_offset = 0 if x.quant is None else -x.quant.zero_point[0]
    # 2 * (v * mul + add) + divisor must fit int64 for every input value v.
    v_max = 2**31 if x.dtype is DType.INT32 else 128 + abs(in_offset)
    worst = 2 * (v_max * int(np.abs(m).max(initial=0)) + int(np.abs(a).max(initial=0))) + divisor
    if worst > INT64_MAX or np.abs(m).max(initial=0) >= 2**31 or np.abs(a).max(initial=0) >= 2**31:
        raise UnsupportedError(f"node {node.name!r} (requant_shift): mul/add too large for 64-bit arithmetic")
    shift = divisor.bit_length() - 1 if divisor & (divisor - 1) == 0 else -1
    ties = attr(node, "ties")
    if ties not in ("up", "away"):
        raise UnsupportedError(f"node {node.name!r} (requant_shift): ties {ties!r}; 'up' or 'away'")
    return RequantShiftParams(x.size, channels, in_offset, out_zp, lo, hi, divisor, shift,
                              np.broadcast_to(m, (channels,)).astype(np.int32),
                              np.broadcast_to(a, (channels,)).astype(np.int32), ties == "away")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def outputs(x: np.ndarray, p: RequantShiftParams) -> np.ndarray:
    """The stored outputs (offset included, clamped), int64, of stored inputs x[..., channels]."""
    t = (np.asarray(x, np.int64) + p.input_offset) * p.mul.astype(np.int64) + p.add.astype(np.int64)
    y = (2 * t + p.divisor) // (2 * p.divisor)  # numpy's // floors, as the formula wants
    if p.ties_away:
        y = np.where(t < 0, -((-2 * t + p.divisor) // (2 * p.divisor)), y)
    return np.clip(y, p.act_min, p.act_max) + p.output_offset


def reference(node: Node, p: RequantShiftParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    out = outputs(np.asarray(inputs[0]).reshape(-1, p.channels), p)
    return [out.astype(np.int8).reshape(inputs[0].shape)]


def emit(node: Node, p: RequantShiftParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {k: getattr(p, k) for k in ("size", "channels", "input_offset", "output_offset",
                                                                "act_min", "act_max", "divisor", "shift")}
    fields["ties_away"] = int(p.ties_away)
    fields.update(mul=em.const(p.mul, "rqs_mul"), add=em.const(p.add, "rqs_add"))
    func = "mote_requant_shift_s32_s8" if x.dtype is DType.INT32 else "mote_requant_shift_s8"
    return CCall(func, "mote_requant_shift_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("requant_shift", shape, prepare, reference, emit,
                    attrs={"divisor": REQUIRED, "n_levels": REQUIRED, "signed": REQUIRED, "ties": "up"}))
