"""The DLA's instruction set (seed 004, Table 2) and its binary command encoding.

A job is a command stream: an array of fixed 32-byte commands in flash, read by the DLA's command
processor from the address in its `cmd` register, `count` commands long. Each command is eight
little-endian 32-bit words:

    word 0   bits 0-7   opcode (OP_* below)
             bits 8-15  flags (FLAG_*)
             bits 16-31 tile group: the double-buffering step the command belongs to (timing only)
    word 1-7 operands a..g (unsigned 32-bit; signed values are stored two's complement)

Operands by opcode (addresses named "SRAM" are byte offsets in the DLA's own SRAM):

    OP_CFG        a = configuration register (CFG_*), b = value. The configuration register file
                  keeps its values across commands and jobs: layer parameters are written once.
    OP_DMA_READ   a = system base (BASE_*: one of the job's address registers), b = byte offset from
    OP_DMA_WRITE  it, c = SRAM address, d = bytes per row, e = rows, f = system bytes between rows.
                  SRAM rows are packed (a 2-D transfer: strided in system memory, dense in SRAM).
    OP_CONV       a = input (SRAM, int8 [IN_H, IN_W, pixels SRC_PIXEL_STRIDE bytes apart, IN_C used]),
    OP_CONV_RELU  b = weights (SRAM, int8 [OUT_C, K_H, K_W, IN_C]), c = output (SRAM, pixels
                  DST_PIXEL_STRIDE elements apart, OUT_C used), d = per-output-channel parameters
                  (SRAM, int32 triples bias, multiplier, shift). Geometry from CFG_IN_H..CFG_PAD_LEFT
                  (PAD_TOP and the row counts describe the tile). FLAG_REQUANT: requantize to int8 with
                  OUT_OFFSET and clamp to [ACT_MIN, ACT_MAX]; without it the int32 accumulators are
                  written. OP_CONV_RELU always requantizes and also clamps below at OUT_OFFSET (ReLU).
    OP_DEPTH_CONV as OP_CONV with weights int8 [K_H, K_W, OUT_C] and OUT_C = IN_C * DEPTH_MULT.
    OP_MAT_MUL    a = input int8 [ROWS, IN_C], b = weights int8 [OUT_C, IN_C] (FILTER_OFFSET added),
                  c = output [ROWS, OUT_C] (rows DST_PIXEL_STRIDE elements apart), d = parameters.
    OP_POOL       a = input int8 [IN_H, IN_W, IN_C], c = output int8 [OUT_H, OUT_W, IN_C]; window
                  K_H x K_W, strides, PAD_TOP/PAD_LEFT; FLAG_MAX: maximum, else the rounded average
                  of the taps inside the input; clamped to [ACT_MIN, ACT_MAX].
    OP_ACT_RELU   a = input, c = output, e = elements: max(x, OUT_OFFSET) clamped to [ACT_MIN, ACT_MAX].
    OP_ACT_LRELU  x >= OUT_OFFSET ? x : OUT_OFFSET + requantize(x - OUT_OFFSET, ALPHA_MULT, ALPHA_SHIFT).
    OP_E_ABS      |x| (saturated to 127).
    OP_C_MIN/MAX  a, b = inputs, c = output, e = elements: element-wise minimum / maximum.
    OP_E_ADD      a, b = int8 inputs, c = output, e = elements: TFLite's quantized ADD with the
                  A_*, B_*, LEFT_SHIFT, OUT_MULT, OUT_SHIFT, OUT_OFFSET, ACT_MIN/MAX registers.
    OP_E32_ADD    a, b = int32 inputs, c = int32 output, e = elements (wrapping addition).

Weight modes: the flags FLAG_W4 and FLAG_W2 of OP_CONV, OP_CONV_RELU, OP_DEPTH_CONV and OP_MAT_MUL say
their weights are 4 or 2 bits wide (neither: int8; an 8-bit stream is the same as before the modes
existed). Below 8 bits the weights are packed rows (mote.accel.packing,
rows-lsb-first): the last axis of the shapes above is packed, every row starts on a byte: OP_CONV
[OUT_C] rows of K_H*K_W*IN_C weights, OP_DEPTH_CONV [K_H*K_W] rows of OUT_C, OP_MAT_MUL [OUT_C] rows of
IN_C. Activations are int8 in every mode.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

OP_CFG = 0x01
OP_CONV = 0x10
OP_CONV_RELU = 0x11
OP_DEPTH_CONV = 0x12
OP_MAT_MUL = 0x13
OP_ACT_RELU = 0x20
OP_ACT_LRELU = 0x21
OP_POOL = 0x22
OP_E_ABS = 0x30
OP_C_MIN = 0x31
OP_C_MAX = 0x32
OP_E_ADD = 0x33
OP_E32_ADD = 0x34
OP_DMA_READ = 0x40
OP_DMA_WRITE = 0x41

NAMES = {v: k for k, v in globals().items() if k.startswith("OP_")}

FLAG_REQUANT = 1 << 0
FLAG_MAX = 1 << 1
FLAG_W4 = 1 << 2  # 4-bit weights, packed
FLAG_W2 = 1 << 3  # 2-bit weights, packed

# The job's address registers a DMA command names as its system-memory base.
BASE_IN0, BASE_IN1, BASE_OUT, BASE_CONSTS = 0, 1, 2, 3
BASES = ("in0", "in1", "out", "consts")

CFG_NAMES = ("IN_H", "IN_W", "IN_C", "OUT_H", "OUT_W", "OUT_C", "K_H", "K_W", "STRIDE_H", "STRIDE_W", "DIL_H",
             "DIL_W", "PAD_TOP", "PAD_LEFT", "IN_OFFSET", "OUT_OFFSET", "ACT_MIN", "ACT_MAX", "DEPTH_MULT",
             "FILTER_OFFSET", "SRC_PIXEL_STRIDE", "DST_PIXEL_STRIDE", "ROWS", "A_OFFSET", "A_MULT", "A_SHIFT",
             "B_OFFSET", "B_MULT", "B_SHIFT", "OUT_MULT", "OUT_SHIFT", "LEFT_SHIFT", "ALPHA_MULT", "ALPHA_SHIFT")
CFG = {name: i for i, name in enumerate(CFG_NAMES)}

COMMAND_BYTES = 32
_FORMAT = "<8I"


@dataclass(frozen=True, slots=True)
class Command:
    op: int
    flags: int = 0
    group: int = 0
    a: int = 0
    b: int = 0
    c: int = 0
    d: int = 0
    e: int = 0
    f: int = 0
    g: int = 0

    @property
    def name(self) -> str:
        return NAMES.get(self.op, f"0x{self.op:02x}")


def weight_flags(bits: int) -> int:
    """The flags of a layer instruction whose weights are `bits` wide."""
    return {8: 0, 4: FLAG_W4, 2: FLAG_W2}[bits]


def weight_bits(flags: int) -> int:
    """The weight width a layer instruction's flags give."""
    return 2 if flags & FLAG_W2 else 4 if flags & FLAG_W4 else 8


def s32(value: int) -> int:
    """A 32-bit operand read back as signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x8000_0000 else value


def encode(commands: list[Command]) -> bytes:
    out = bytearray()
    for c in commands:
        word0 = (c.op & 0xFF) | (c.flags & 0xFF) << 8 | (c.group & 0xFFFF) << 16
        out += struct.pack(_FORMAT, word0, *(v & 0xFFFFFFFF for v in (c.a, c.b, c.c, c.d, c.e, c.f, c.g)))
    return bytes(out)


def decode(data: bytes) -> list[Command]:
    if len(data) % COMMAND_BYTES:
        raise ValueError(f"a command stream is a multiple of {COMMAND_BYTES} bytes, got {len(data)}")
    commands = []
    for (word0, *ops) in struct.iter_unpack(_FORMAT, data):
        commands.append(Command(word0 & 0xFF, (word0 >> 8) & 0xFF, word0 >> 16, *ops))
    return commands


def as_words(data: bytes) -> np.ndarray:
    """The stream as int32 words, for a const array in flash (4-byte aligned)."""
    return np.frombuffer(data, "<u4").astype(np.uint32).view(np.int32)
