"""The Armv6-M kernels' one-multiply output stage in 32-bit pieces (mote_armv6m.h, mote_armv6m_single).

mote.ops.output_single finds, per channel, constants that make one product exact against TFLite's two roundings for
every accumulator a layer can reach: act_min below `low`, act_max from `high` on, else the low byte of the high word
of z * M (z = acc + add). Armv6-M has no long multiply (a 64-bit product is a call to __aeabi_lmul), so the kernel
computes that high word from z' = z - low instead, in [0, D) with D = high - low < 2^24, and 16-bit halves:

    z' = zh 2^16 + zl,  M = mh 2^16 + ml (M < 2^31),  K = low * M = Kh 2^32 + k1 2^16 + k0,
    floor((z' M + K) / 2^32) = zh mh + Kh + floor((zl mh + zh ml + k1 + floor((zl ml + k0) / 2^16)) / 2^16),

every sum below 2^32 (zl mh < 2^31, zh ml < 2^24, zl ml + k0 < 2^32). Only the low byte is stored, so Kh enters
modulo 256 inside the last sum (Kh mod 256 times 2^16 on k1). `add - low` goes into the bias, so the accumulator is
z' itself; an unsigned comparison with D sends both clamps to one rarely taken branch. A row: D, ml, mh, k0, k1'.
A channel without such constants keeps the 32-bit stage of mote_dsp.h (its 64-bit product a call): its row is
NO_ROW. A channel whose outputs are all clamped (D = 0) compares only.
"""

from __future__ import annotations

import numpy as np

from mote.ops.output_single import single_stage

WORDS = 5  # MOTE_ARMV6M_SINGLE
NO_ROW = (0, -1, 0, 0, 0)  # a channel without constants: D = 0, ml = -1 (a real ml is in [0, 2^16))
SPAN = 1 << 24  # D's bound: z' >> 16 fits 8 bits


def single_rows(multiplier: np.ndarray, shift: np.ndarray, offset: int, act_min: int, act_max: int,
                bias: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per channel, for accumulators in bias +- reach: its row (int32 [n, WORDS]) and its bias with add - low in it.
    A channel whose reachable accumulators all give act_min or act_max has D = 0 (its bias puts the threshold at
    0). A channel with no one-multiply stage (with S = 0 and a span below 2^24) gets the row NO_ROW and keeps its
    bias: the kernel sends it to mote_dsp.h's stage."""
    shift = np.broadcast_to(shift, np.shape(multiplier))
    rows, biases = np.tile(np.array(NO_ROW, np.int64), (len(multiplier), 1)), np.array(bias, np.int64)
    for c in range(len(multiplier)):
        b, r = int(bias[c]), int(reach[c])
        st = single_stage(int(multiplier[c]), int(shift[c]), offset, act_min, act_max, b - r, b + r)
        if st is None or st.shift != 0 or not 0 <= st.high - st.low < SPAN:
            continue
        folded = b + st.add - st.low
        if abs(folded) + r >= 2**31:
            continue
        m, k = st.multiplier, st.low * st.multiplier
        kh, kl = k >> 32, k % 2**32
        rows[c] = [st.high - st.low, m & 0xFFFF, m >> 16, kl & 0xFFFF, (kl >> 16) + ((kh % 256) << 16)]
        biases[c] = folded
    return rows.astype(np.int32), biases.astype(np.int32)


def single_emulate(z: np.ndarray, row: np.ndarray, act_min: int, act_max: int) -> np.ndarray:
    """mote_armv6m_single's output for accumulators z (the bias with add - low in it), as int8, in uint32 steps."""
    z = np.asarray(z, np.int64)
    d, ml, mh, k0, k1 = (int(v) for v in row)
    zu = z % 2**32
    zl, zh = zu & 0xFFFF, zu >> 16
    if ml < 0:
        raise ValueError("a channel without a row (mote_dsp.h's stage)")
    inside = zu < d
    t = (zl * ml + k0) % 2**32 >> 16
    u = (zl * mh + zh * ml + k1 + t) % 2**32 >> 16
    byte = ((u + zh * mh) % 256 + 128) % 256 - 128
    return np.where(inside, byte, np.where(z < 0, act_min, act_max)).astype(np.int8)
