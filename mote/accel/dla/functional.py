"""The DLA's functional model: executes a command stream on its SRAM, bit-exactly.

The arithmetic is mote's reference arithmetic (mote.ops: zero-padded windows, int64 accumulation,
TFLite's requantization through mote.quant), applied to the operands the commands name in SRAM, so
a job computes exactly what the reference computes for its tile of the layer. Weights of a 4- or 2-bit
mode (FLAG_W4, FLAG_W2) are unpacked from their rows (mote.accel.packing) to the same int8 values.
"""

from __future__ import annotations

import numpy as np

from mote.accel.dla import isa
from mote.accel.interface import Memory
from mote.accel.packing import row_bytes, unpack_rows
from mote.errors import MoteError
from mote.ops.avg_pool2d import round_div_away
from mote.ops.conv_common import requantize
from mote.ops.max_pool2d import PoolParams, windows
from mote.ops.windows import zero_padded_windows
from mote.quant import multiply_by_quantized_multiplier

_CFG = isa.CFG


class DlaState:
    """What persists across commands and jobs: the SRAM and the configuration register file."""

    def __init__(self, sram_bytes: int) -> None:
        self.sram = np.zeros(sram_bytes, np.uint8)  # calloc'd: untouched pages cost nothing
        self.regs = [0] * len(isa.CFG_NAMES)

    def reg(self, name: str) -> int:
        return isa.s32(self.regs[_CFG[name]])

    def check(self, address: int, size: int, what: str) -> None:
        if address < 0 or address + size > self.sram.size:
            raise MoteError(f"dla: {what} of {size} bytes at SRAM 0x{address:x} is outside its {self.sram.size} "
                            "bytes of SRAM")

    def load(self, address: int, shape: tuple[int, ...], pixel_stride: int, dtype: str = "i1") -> np.ndarray:
        """[pixels..., channels] values whose pixels are `pixel_stride` elements apart."""
        channels, pixels = shape[-1], int(np.prod(shape[:-1]))
        size = np.dtype(dtype).itemsize
        span = ((pixels - 1) * pixel_stride + channels) * size if pixels and channels else 0
        self.check(address, span, "an operand")
        flat = self.sram[address:address + span].view(dtype)
        if pixel_stride == channels:
            return flat.reshape(shape)
        index = np.arange(pixels)[:, None] * pixel_stride + np.arange(channels)[None, :]
        return flat[index].reshape(shape)

    def load_weights(self, address: int, rows: int, count: int, bits: int) -> np.ndarray:
        """int8 [rows, count] weights stored as `bits`-bit packed rows (8: plain int8 rows)."""
        size = row_bytes(count, bits)
        self.check(address, rows * size, "weights")
        return unpack_rows(self.sram[address:address + rows * size].reshape(rows, size), count, bits)

    def store(self, address: int, values: np.ndarray, pixel_stride: int) -> None:
        channels = values.shape[-1]
        rows = values.reshape(-1, channels)
        size = values.dtype.itemsize
        span = ((rows.shape[0] - 1) * pixel_stride + channels) * size if rows.size else 0
        self.check(address, span, "a result")
        flat = self.sram[address:address + span].view(values.dtype)
        if pixel_stride == channels:
            flat[:] = rows.reshape(-1)
        else:
            flat[np.arange(rows.shape[0])[:, None] * pixel_stride + np.arange(channels)[None, :]] = rows


def run(commands: list[isa.Command], bases: list[int], memory: Memory, state: DlaState) -> None:
    """Execute `commands`; `bases` are the system addresses of the job's in0, in1, out and consts."""
    for c in commands:
        op = c.op
        if op == isa.OP_CFG:
            state.regs[c.a] = c.b & 0xFFFFFFFF
        elif op == isa.OP_DMA_READ:
            _dma_read(c, bases, memory, state)
        elif op == isa.OP_DMA_WRITE:
            _dma_write(c, bases, memory, state)
        elif op in (isa.OP_CONV, isa.OP_CONV_RELU, isa.OP_DEPTH_CONV):
            _conv(c, state)
        elif op == isa.OP_MAT_MUL:
            _mat_mul(c, state)
        elif op == isa.OP_POOL:
            _pool(c, state)
        else:
            _eltwise(c, state)


def _dma_read(c: isa.Command, bases: list[int], memory: Memory, state: DlaState) -> None:
    row, rows, stride = c.d, c.e, c.f
    if not rows or not row:
        return
    span = (rows - 1) * stride + row
    data = np.frombuffer(memory.read(bases[c.a] + c.b, span), np.uint8)
    state.check(c.c, row * rows, "a DMA read")
    if stride == row:
        state.sram[c.c:c.c + span] = data
    else:
        index = np.arange(rows)[:, None] * stride + np.arange(row)[None, :]
        state.sram[c.c:c.c + row * rows] = data[index].reshape(-1)


def _dma_write(c: isa.Command, bases: list[int], memory: Memory, state: DlaState) -> None:
    row, rows, stride = c.d, c.e, c.f
    if not rows or not row:
        return
    state.check(c.c, row * rows, "a DMA write")
    src = state.sram[c.c:c.c + row * rows]
    address = bases[c.a] + c.b
    if stride == row:
        memory.write(address, src.tobytes())
        return
    span = (rows - 1) * stride + row
    data = np.frombuffer(memory.read(address, span), np.uint8).copy()  # only the rows change
    data[np.arange(rows)[:, None] * stride + np.arange(row)[None, :]] = src.reshape(rows, row)
    memory.write(address, data.tobytes())


def _params(state: DlaState, address: int, channels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    state.check(address, 12 * channels, "requantization parameters")
    p = state.sram[address:address + 12 * channels].view("<i4").reshape(channels, 3).astype(np.int64)
    return p[:, 0], p[:, 1], p[:, 2]


def _finish(c: isa.Command, state: DlaState, acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray) -> None:
    """Requantize (FLAG_REQUANT, OP_CONV_RELU) or keep the int32 accumulators; store at operand c."""
    stride = state.reg("DST_PIXEL_STRIDE")
    if c.op == isa.OP_CONV_RELU or c.flags & isa.FLAG_REQUANT:
        act_min = state.reg("ACT_MIN")
        if c.op == isa.OP_CONV_RELU:
            act_min = max(act_min, state.reg("OUT_OFFSET"))
        out = requantize(acc, multiplier, shift, state.reg("OUT_OFFSET"), act_min, state.reg("ACT_MAX"))
        state.store(c.c, out, stride)
    else:
        state.store(c.c, acc.astype("<i4"), stride)


def _conv(c: isa.Command, state: DlaState) -> None:
    r = state.reg
    ih, iw, ic, oh, ow, oc = r("IN_H"), r("IN_W"), r("IN_C"), r("OUT_H"), r("OUT_W"), r("OUT_C")
    kh, kw = r("K_H"), r("K_W")
    x = state.load(c.a, (1, ih, iw, ic), r("SRC_PIXEL_STRIDE")).astype(np.int64) + r("IN_OFFSET")
    win = zero_padded_windows(x, (oh, ow), (kh, kw), (r("STRIDE_H"), r("STRIDE_W")), (r("DIL_H"), r("DIL_W")),
                              (r("PAD_TOP"), r("PAD_LEFT")))
    bits = isa.weight_bits(c.flags)
    if c.op == isa.OP_DEPTH_CONV:
        w = state.load_weights(c.b, kh * kw, oc, bits).reshape(kh, kw, oc).astype(np.int64)
        per_output = win[..., np.arange(oc) // max(r("DEPTH_MULT"), 1)]
        acc = np.einsum("nyxijc,ijc->nyxc", per_output, w)
    else:
        w = state.load_weights(c.b, oc, kh * kw * ic, bits).reshape(oc, kh, kw, ic).astype(np.int64)
        acc = np.einsum("nyxijc,oijc->nyxo", win, w)
    bias, multiplier, shift = _params(state, c.d, oc)
    _finish(c, state, acc[0] + bias, multiplier, shift)


def _mat_mul(c: isa.Command, state: DlaState) -> None:
    r = state.reg
    rows, ic, oc = r("ROWS"), r("IN_C"), r("OUT_C")
    x = state.load(c.a, (rows, ic), r("SRC_PIXEL_STRIDE")).astype(np.int64) + r("IN_OFFSET")
    w = state.load_weights(c.b, oc, ic, isa.weight_bits(c.flags)).astype(np.int64) + r("FILTER_OFFSET")
    bias, multiplier, shift = _params(state, c.d, oc)
    _finish(c, state, x @ w.T + bias, multiplier, shift)


def _pool(c: isa.Command, state: DlaState) -> None:
    r = state.reg
    p = PoolParams(1, r("IN_H"), r("IN_W"), r("IN_C"), r("OUT_H"), r("OUT_W"), r("K_H"), r("K_W"), r("STRIDE_H"),
                   r("STRIDE_W"), r("PAD_TOP"), r("PAD_LEFT"), r("ACT_MIN"), r("ACT_MAX"))
    x = state.load(c.a, (1, p.in_h, p.in_w, p.channels), r("SRC_PIXEL_STRIDE"))
    win = windows(p, x)
    if c.flags & isa.FLAG_MAX:
        out = win.max(axis=(3, 4)).filled(-128)
    else:
        total = win.sum(axis=(3, 4)).filled(0).astype(np.int64)
        count = np.maximum(np.asarray(win.count(axis=(3, 4)), dtype=np.int64), 1)
        out = round_div_away(total, count)
    state.store(c.c, np.clip(out, p.act_min, p.act_max).astype(np.int8)[0], r("DST_PIXEL_STRIDE"))


def _eltwise(c: isa.Command, state: DlaState) -> None:
    r = state.reg
    n, op = c.e, c.op
    wide = op == isa.OP_E32_ADD
    dtype = "<i4" if wide else "i1"
    a = state.load(c.a, (n,), n, dtype).astype(np.int64)
    b = state.load(c.b, (n,), n, dtype).astype(np.int64) if op in (isa.OP_C_MIN, isa.OP_C_MAX, isa.OP_E_ADD,
                                                                   isa.OP_E32_ADD) else a
    if op == isa.OP_E32_ADD:
        state.store(c.c, ((a + b + (1 << 31)) % (1 << 32) - (1 << 31)).astype("<i4"), n)
        return
    zp = r("OUT_OFFSET")
    if op == isa.OP_ACT_RELU:
        out = np.clip(np.maximum(a, zp), r("ACT_MIN"), r("ACT_MAX"))
    elif op == isa.OP_ACT_LRELU:
        scaled = multiply_by_quantized_multiplier(a - zp, r("ALPHA_MULT"), r("ALPHA_SHIFT")) + zp
        out = np.clip(np.where(a >= zp, a, scaled), -128, 127)
    elif op == isa.OP_E_ABS:
        out = np.minimum(np.abs(a), 127)
    elif op == isa.OP_C_MIN:
        out = np.minimum(a, b)
    elif op == isa.OP_C_MAX:
        out = np.maximum(a, b)
    elif op == isa.OP_E_ADD:
        shift = r("LEFT_SHIFT")
        sa = multiply_by_quantized_multiplier((a + r("A_OFFSET")) << shift, r("A_MULT"), r("A_SHIFT"))
        sb = multiply_by_quantized_multiplier((b + r("B_OFFSET")) << shift, r("B_MULT"), r("B_SHIFT"))
        out = multiply_by_quantized_multiplier(sa + sb, r("OUT_MULT"), r("OUT_SHIFT")) + zp
        out = np.clip(out, r("ACT_MIN"), r("ACT_MAX"))
    else:
        raise MoteError(f"dla: unknown opcode 0x{op:02x}")
    state.store(c.c, out.astype(np.int8), n)
