"""Just enough of an RV32IMC (and F) decoder for counting: each instruction's length and cost class, and the
operands of stores (the profiler finds which store wrote a device register from them).

A 16-bit parcel whose two low bits are 11 starts a 32-bit instruction; any other parcel is a
compressed (RV32C) instruction.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Cls(IntEnum):
    """Instruction classes of the cycle model (mote.sim.cycles.CoreModel has a cost for each).

    A conditional branch decodes as BRANCH_NOT_TAKEN; the counter moves the executions that were
    taken to BRANCH_TAKEN. CSR accesses, fences, ecall/ebreak count as ALU."""

    ALU = 0
    LOAD = 1
    STORE = 2
    MUL = 3    # mul
    MULH = 4   # mulh, mulhsu, mulhu: the upper word of a 64-bit product
    DIV = 5    # div, divu, rem, remu
    BRANCH_TAKEN = 6
    BRANCH_NOT_TAKEN = 7
    JUMP = 8   # jal, jalr and their compressed forms (always taken)
    FPU = 9    # the F extension's arithmetic, conversions, moves and compares (its loads and stores: LOAD, STORE)
    FDIV = 10  # fdiv.s, fsqrt.s


NUM_CLASSES = len(Cls)
# Class count vectors have one more entry after the classes: the beats (Insn.beats) of the instructions
# counted, which are not instructions of their own.
BEATS = NUM_CLASSES


@dataclass(frozen=True)
class Store:
    """A store's operands: it writes the low `width` bytes of x[rs2] to x[rs1] + imm."""

    rs1: int
    rs2: int
    imm: int
    width: int


@dataclass(frozen=True)
class Insn:
    addr: int
    size: int  # 2 or 4 bytes
    cls: Cls
    store: Store | None = None
    # Transfers beyond the first of a multiple or dual load or store (Arm's LDM, PUSH, LDRD: 1 + N cycles
    # on M-profile cores); 0 for every other instruction and for RV32. The cycle model charges them apart.
    beats: int = 0


def _bits(x: int, hi: int, lo: int) -> int:
    return (x >> lo) & ((1 << (hi - lo + 1)) - 1)


def _sext(x: int, bits: int) -> int:
    return x - (1 << bits) if x >> (bits - 1) else x


def insn_size(parcel: int) -> int:
    return 4 if parcel & 3 == 3 else 2


def decode_block(addr: int, code: bytes, count: int | None = None) -> list[Insn]:
    """Decode the instructions of `code` starting at `addr`: all of them, or the first `count`."""
    out: list[Insn] = []
    off = 0
    while off + 2 <= len(code) and (count is None or len(out) < count):
        parcel = int.from_bytes(code[off:off + 2], "little")
        if parcel & 3 == 3:
            word = int.from_bytes(code[off:off + 4], "little")
            out.append(_decode32(addr + off, word))
            off += 4
        else:
            out.append(_decode16(addr + off, parcel))
            off += 2
    return out


def _decode32(addr: int, w: int) -> Insn:
    opcode = w & 0x7F
    funct3 = _bits(w, 14, 12)
    if opcode == 0x03 or opcode == 0x07:  # LOAD, LOAD-FP
        return Insn(addr, 4, Cls.LOAD)
    if opcode == 0x23 or opcode == 0x27:  # STORE, STORE-FP
        imm = _sext((_bits(w, 31, 25) << 5) | _bits(w, 11, 7), 12)
        return Insn(addr, 4, Cls.STORE, Store(_bits(w, 19, 15), _bits(w, 24, 20), imm, 1 << (funct3 & 3)))
    if opcode == 0x63:
        return Insn(addr, 4, Cls.BRANCH_NOT_TAKEN)
    if opcode in (0x6F, 0x67):  # JAL, JALR
        return Insn(addr, 4, Cls.JUMP)
    if opcode == 0x33 and _bits(w, 31, 25) == 1:  # the M extension
        return Insn(addr, 4, Cls.MUL if funct3 == 0 else Cls.MULH if funct3 < 4 else Cls.DIV)
    if opcode == 0x53:  # OP-FP: funct5 3 is fdiv, 11 fsqrt
        return Insn(addr, 4, Cls.FDIV if _bits(w, 31, 27) in (0x03, 0x0B) else Cls.FPU)
    if opcode in (0x43, 0x47, 0x4B, 0x4F):  # fmadd, fmsub, fnmsub, fnmadd
        return Insn(addr, 4, Cls.FPU)
    return Insn(addr, 4, Cls.ALU)


def _decode16(addr: int, p: int) -> Insn:
    quadrant = p & 3
    funct3 = _bits(p, 15, 13)
    if quadrant == 0:
        if funct3 in (1, 2, 3):  # c.fld, c.lw, c.flw
            return Insn(addr, 2, Cls.LOAD)
        if funct3 in (5, 6, 7):  # c.fsd, c.sw, c.fsw
            if funct3 == 5:
                imm, width = (_bits(p, 12, 10) << 3) | (_bits(p, 6, 5) << 6), 8
            else:
                imm, width = (_bits(p, 12, 10) << 3) | (_bits(p, 6, 6) << 2) | (_bits(p, 5, 5) << 6), 4
            return Insn(addr, 2, Cls.STORE, Store(8 + _bits(p, 9, 7), 8 + _bits(p, 4, 2), imm, width))
        return Insn(addr, 2, Cls.ALU)  # c.addi4spn (or the illegal all-zero parcel)
    if quadrant == 1:
        if funct3 in (1, 5):  # c.jal, c.j
            return Insn(addr, 2, Cls.JUMP)
        if funct3 in (6, 7):  # c.beqz, c.bnez
            return Insn(addr, 2, Cls.BRANCH_NOT_TAKEN)
        return Insn(addr, 2, Cls.ALU)
    # quadrant 2
    if funct3 in (1, 2, 3):  # c.fldsp, c.lwsp, c.flwsp
        return Insn(addr, 2, Cls.LOAD)
    if funct3 in (5, 6, 7):  # c.fsdsp, c.swsp, c.fswsp
        if funct3 == 5:
            imm, width = (_bits(p, 12, 10) << 3) | (_bits(p, 9, 7) << 6), 8
        else:
            imm, width = (_bits(p, 12, 9) << 2) | (_bits(p, 8, 7) << 6), 4
        return Insn(addr, 2, Cls.STORE, Store(2, _bits(p, 6, 2), imm, width))
    if funct3 == 4:
        rs1, rs2 = _bits(p, 11, 7), _bits(p, 6, 2)
        if rs2 == 0 and rs1 != 0:  # c.jr, c.jalr
            return Insn(addr, 2, Cls.JUMP)
    return Insn(addr, 2, Cls.ALU)  # c.slli, c.mv, c.add, c.ebreak
