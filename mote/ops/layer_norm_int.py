"""layer_norm: LayerNorm or RMSNorm over the last axis of an int8 tensor, in integers only (no libm, no float):

  LayerNorm  y = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta
  RMSNorm    y = x / sqrt(mean(x^2) + eps) * gamma (+ beta)         (attr rms)

  inputs [x int8, gamma float32 [D] (constant), beta float32 [D] (constant) | None]; attrs epsilon, rms.

With xc = x - zero point (|xc| <= 255), S1 = sum xc and S2 = sum xc^2 over a row of D values, the row's
normalized values are z_i = n_i / sqrt(V + E), where n_i = D xc_i - S1 and V = D S2 - S1^2 (LayerNorm) or n_i =
D xc_i and V = D S2 (RMSNorm), and E = D^2 eps / s_x^2 (a compile-time constant); then q_i = z_i * gamma_i / s_y +
beta_i / s_y, rounded (halves up) and offset by the output zero point, clamped to int8. In fixed point:
  - T = V * 2^16 + round(E * 2^16) (< 2^62, checked at compile time), shifted left by 2k into [2^60, 2^62);
  - q = floor(sqrt(T)) in [2^30, 2^31) (an integer square root), inv = floor(2^61 / q);
  - z_i with 23 fraction bits: (n_i * inv) >> (30 - k), rounded; |z_i| <= sqrt(D);
  - y_i with 16 fraction bits: (z_i * Gm_i) >> Gs_i, rounded, plus round(beta_i / s_y * 2^16), where Gm_i / 2^Gs_i
    is gamma_i / s_y * 2^-7 with |Gm_i| in [2^29, 2^30).
Each step rounds once with a relative error under 2^-29, so y_i is within 2^-10 of an output step of the real
value: the result differs from exact arithmetic (and from onnxruntime's float32) only where the real value lies
that close to a rounding boundary, by one step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mote.errors import UnsupportedError
from mote.ir import DType, Node
from mote.ops import checks
from mote.ops.registry import CCall, Emitter, OpDef, attr, register

F, Z, BF = 16, 23, 16  # fraction bits of T, of z and of y
MAX_DEPTH = 1 << 15


@dataclass(frozen=True, eq=False)
class NormParams:
    rows: int
    depth: int
    input_zero_point: int
    output_zero_point: int
    eps_term: int  # round(E * 2^16)
    g_mul: np.ndarray  # int32 [depth]
    g_shift: np.ndarray  # int32 [depth], 0..62
    bias: np.ndarray  # int64 [depth]: beta / s_y * 2^16


def check(node: Node) -> None:
    checks.input_count(node, 2, 3)
    x = checks.int8_activation(node, node.inputs[0], "input")
    checks.int8_activation(node, node.outputs[0], "output")
    depth = x.shape[-1] if x.shape else 0
    if not 0 < depth <= MAX_DEPTH:
        raise checks.fail(node, f"rows of {depth} values; the kernel normalizes 1 to {MAX_DEPTH}")
    for i, role in ((1, "gamma"), (2, "beta")):
        t = node.inputs[i] if i < len(node.inputs) else None
        if t is None:
            continue
        checks.dtype(node, t, role, DType.FLOAT32)
        checks.constant(node, t, role)
        if t.size != depth:
            raise checks.fail(node, f"the {role} holds {t.size} values for rows of {depth}")
    if not float(attr(node, "epsilon")) > 0:
        raise checks.fail(node, f"epsilon {attr(node, 'epsilon')} must be positive")


def shape(node: Node) -> list[tuple[int, ...]]:
    x = node.inputs[0]
    assert x is not None
    return [x.shape]


def _multipliers(gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gain_i * 2^(BF - Z) as Gm_i / 2^Gs_i, |Gm_i| in [2^29, 2^30) (0 for a zero gain)."""
    mul, shift = np.zeros(gain.size, np.int64), np.zeros(gain.size, np.int64)
    for i, g in enumerate(gain.astype(np.float64) * 2.0 ** (BF - Z)):
        if g == 0:
            continue
        s = 29 - math.floor(math.log2(abs(g)))
        if not 0 <= s <= 62:
            raise UnsupportedError(f"gamma / output scale {g * 2.0 ** (Z - BF):g} is out of the kernel's range")
        m = round(g * 2.0**s)
        if abs(m) >= 2**30:
            m, s = round(g * 2.0 ** (s - 1)), s - 1
        mul[i], shift[i] = m, s
    return mul.astype(np.int32), shift.astype(np.int32)


def prepare(node: Node) -> NormParams:
    x, out = node.inputs[0], node.outputs[0]
    assert x is not None
    depth = x.shape[-1]
    gamma = np.asarray(node.inputs[1].data, np.float64).reshape(-1)  # type: ignore[union-attr]
    beta_t = node.inputs[2] if len(node.inputs) > 2 else None
    beta = np.zeros(depth) if beta_t is None else np.asarray(beta_t.data, np.float64).reshape(-1)
    s_x, s_y = float(np.float32(x.scale)), float(np.float32(out.scale))
    eps = float(np.float32(attr(node, "epsilon")))
    eps_term = round(depth * depth * eps / (s_x * s_x) * 2.0**F)
    if eps_term < 1 or depth * 255 * 255 * depth * 2**F + eps_term >= 2**62:
        raise UnsupportedError(f"node {node.name!r} (layer_norm): epsilon {eps:g} with input scale {s_x:g} is out of "
                               "the integer kernel's range")
    g_mul, g_shift = _multipliers(gamma / s_y)
    bias = np.round(beta / s_y * 2.0**BF)
    if np.abs(bias).max(initial=0) >= 2**40:
        raise UnsupportedError(f"node {node.name!r} (layer_norm): beta / output scale is out of the kernel's range")
    return NormParams(x.size // depth, depth, x.zero_point, out.zero_point, eps_term, g_mul, g_shift,
                      bias.astype(np.int64))


def _round_shift(v: np.ndarray, s: np.ndarray | int) -> np.ndarray:
    """(v + 2^(s - 1)) >> s for s > 0, v for s == 0 (int64, arithmetic shift)."""
    s = np.asarray(s, np.int64)
    half = np.where(s > 0, np.left_shift(np.int64(1), np.maximum(s - 1, 0)), 0)
    return np.right_shift(v + half, s)


def reference(node: Node, p: NormParams, inputs: list[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(inputs[0]).reshape(p.rows, p.depth).astype(np.int64) - p.input_zero_point
    out = np.empty(x.shape, np.int8)
    rms = bool(attr(node, "rms"))
    for r in range(p.rows):
        xc = x[r]
        s1, s2 = int(xc.sum()), int((xc * xc).sum())
        v = p.depth * s2 - (0 if rms else s1 * s1)
        t, k = (v << F) + p.eps_term, 0
        while t < 2**60:
            t, k = t << 2, k + 1
        inv = 2**61 // math.isqrt(t)
        n = p.depth * xc - (0 if rms else s1)
        z = _round_shift(n * inv, 30 - k)
        y = _round_shift(z * p.g_mul.astype(np.int64), p.g_shift) + p.bias
        q = np.right_shift(y + (1 << (BF - 1)), BF) + p.output_zero_point
        out[r] = np.clip(q, -128, 127)
    return [out.reshape(node.outputs[0].shape)]


def emit(node: Node, p: NormParams, em: Emitter) -> CCall:
    x = node.inputs[0]
    assert x is not None
    fields: dict[str, int | str] = {
        "rows": p.rows, "depth": p.depth, "rms": int(bool(attr(node, "rms"))), "input_zero_point": p.input_zero_point,
        "output_zero_point": p.output_zero_point, "eps_hi": p.eps_term >> 32, "eps_lo": p.eps_term & 0xFFFFFFFF,
        "g_mul": em.const(p.g_mul, "norm_gain"), "g_shift": em.const(p.g_shift, "norm_shift"),
        "bias": em.const(p.bias, "norm_bias")}
    return CCall("mote_layer_norm_s8", "mote_layer_norm_s8_params", fields, [em.tensor(x), em.tensor(node.outputs[0])])


OP = register(OpDef("layer_norm", shape, prepare, reference, emit, check=check,
                    attrs={"epsilon": 1e-5, "rms": False}))
