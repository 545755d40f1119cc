"""The integer arithmetic of Deeploy's generic kernels, written here as scalar loops in plain Python integers
(an oracle independent of mote's vectorized references), with C's semantics spelled out: truncating
division, wrapping casts, uint32 arithmetic. Slow, one value at a time; the tests run them on small tensors.

Each function takes flat lists of the stored values and returns flat lists of the stored outputs."""

from __future__ import annotations

import math

M32 = 2**32


def cast(v: int, bits: int) -> int:
    """(intN_t)v: two's complement wrap-around."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def softmax_s8(x: list[int], last: int, a: int, b: int, c: int, log2: int, n_levels: int) -> list[int]:
    """Softmax_s8_s8 (Generic)."""
    out = []
    for i in range(len(x) // last):
        row = x[i * last:(i + 1) * last]
        x_max = -128
        for v in row:
            x_max = max(x_max, v)
        ys, y_sum = [], 0
        for v in row:
            x_tilde = cast(v - x_max, 16)
            z = cast(-cdiv(x_tilde, log2), 8)
            z = min(max(z, 0), 31)
            p = cast(x_tilde + z * log2, 16)
            y = ((a * cast((p + b) * (p + b), 32) + c) % 2**64 >> z) % M32
            ys.append(y)
            y_sum = (y_sum + y) % M32
        for y in ys:
            out.append(cast((y * (n_levels - 1) % M32) // y_sum - n_levels // 2, 8))
    return out


def ita_max_s8(x: list[int], last: int, n_levels: int) -> list[int]:
    """ITAMax_s8."""
    out = []
    for i in range(len(x) // last):
        row = x[i * last:(i + 1) * last]
        m = max([-128, *row])
        shift = [((m - v) + 16) >> 5 for v in row]
        exp_sum = sum(256 >> s for s in shift) % M32
        inv = ((n_levels - 1) * 256) // exp_sum
        out += [cast((inv >> s) - n_levels // 2, 8) for s in shift]
    return out


def ita_partial_max_s8(x: list[int], last: int, width: int, n_levels: int) -> list[int]:
    """ITAPartialMax_s8."""
    out = []
    for i in range(len(x) // last):
        row = x[i * last:(i + 1) * last]
        partial, global_max = 0, -128
        for g in range(last // width):
            group = row[g * width:(g + 1) * width]
            current = max([-128, *group])
            max_shift = (current - global_max + 16) >> 5
            shift_sum = max_shift if current > global_max else 0
            global_max = current if current > global_max else global_max
            exp_sum = 0
            for v in group:
                exp_sum += 256 >> (((global_max - v) + 16) >> 5)
            partial = (partial >> shift_sum) + exp_sum
        inverse = ((n_levels // 2 - 1) * 256) // partial
        for v in row:
            out.append(cast((inverse >> (((global_max - v) + 16) >> 5)) - n_levels // 2, 8))
    return out


def sqrt_q32(number: int) -> int:
    """_plp_sqrt_q32 with fracBits 0: a binary search."""
    root, start, end = 0, 0, 46342
    if number <= 0:
        return 0
    while start <= end:
        mid = (start + end) >> 1
        if mid * mid == number:
            return mid
        if mid * mid < number:
            start, root = mid + 1, mid
        else:
            end = mid - 1
    return root


def layernorm_s8(x: list[int], w: list[int], b: list[int], offset: int, last: int, log2d: int) -> list[int]:
    """Layernorm_s8_s8 (Generic)."""
    out = []
    for start in range(0, len(x), last):
        row = x[start:start + last]
        mean = cdiv(sum(v + offset for v in row), last)
        total = 0
        for v in row:
            t = cast(v + offset - mean, 16)
            total = cast(total + t * t, 32)
        std = sqrt_q32(cdiv(total, last) + 1)
        for j, v in enumerate(row):
            out.append(cast((cdiv((v + offset - mean) * w[j], std) + b[j]) >> log2d, 8))
    return out


def rmsnorm_s8(x: list[int], w: list[int], offset: int, last: int, log2d: int) -> list[int]:
    """iRMSnorm_s8_s8 (Generic)."""
    out = []
    for i in range(len(x) // last):
        row = x[i * last:(i + 1) * last]
        total = 0
        for v in row:
            t = cast(v + offset, 16)
            total = cast(total + t * t, 32)
        std = sqrt_q32(cdiv(total, last) + 1)
        for j, v in enumerate(row):
            out.append(min(max(cast(cdiv(cast((v + offset) * w[j], 32), std), 32) >> log2d, -128), 127))
    return out


def gelu_s8_s32(x: list[int], b: int, one: int, offset: int) -> list[int]:
    """GELU_s8_s32 (Generic); b is passed as int8_t, one as int16_t."""
    b, one = cast(b, 8), cast(one, 16)
    out = []
    for v in x:
        v += offset
        sign = (v > 0) - (v < 0)
        x_abs = sign * v
        q = -b if x_abs > -b else x_abs
        d = q + b
        L = sign * (-(d * d) + one)
        out.append(cast(v * ((one + L) >> 1), 32))
    return out


def hardswish_s8_s32(x: list[int], one_over_six: int, three: int, six: int, offset: int) -> list[int]:
    """iHardswish_s8_s32 (Generic)."""
    out = []
    for v in x:
        t = v + offset + three
        t = 0 if t < 0 else t
        t = six if t > six else t
        t = cast(t * one_over_six, 32)
        out.append(cast(v * t, 32))
    return out


def inonorm_s8(x: list[int], w: list[int], b: list[int], mul: int, log2d: int) -> list[int]:
    """SnitchiNoNorm_s8_s8 (its scalar loop; the packed one computes the same bytes), w and b already
    broadcast to x."""
    return [cast(cast((v * w[i] + b[i]) * mul, 32) >> log2d, 8) for i, v in enumerate(x)]


def div_s32(a: list[int], b: list[int], a_shape: tuple[int, ...], b_shape: tuple[int, ...], delta: int, eps: int,
            eta: int) -> list[int]:
    """Div_s32_s32 with the parser's nomStep / denomStep (the first axis where the shapes differ)."""
    size_a = len(a)
    idx = next((i for i, (p, q) in enumerate(zip(a_shape, b_shape)) if p != q), None)
    nom_step = 1 if idx is None else int(math.prod(a_shape[idx:]))
    denom_step = 1 if idx is None else int(math.prod(b_shape[idx:]))
    inner = denom_step
    second = nom_step // inner
    third = size_a // second
    out = [0] * size_a
    for i in range(third):
        for k in range(inner):
            denom = eta * b[i * inner + k] + eps
            for j in range(second):
                nom = cast(delta * eta, 32) * a[i * second * inner + j * inner + k]
                sgn = (nom >= 0) - (nom < 0)
                out[i * second * inner + j * inner + k] = cast(cdiv(nom + sgn * (denom >> 1), denom), 32)
    return out
