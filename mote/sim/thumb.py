"""Thumb and Thumb-2 (Armv6-M, Armv7E-M, Armv8-M Mainline) into the cycle model's classes, with Capstone.

Capstone (the `capstone` package) decodes every M-profile encoding, including the DSP extension and the
FPU's, and tracks IT blocks, so an instruction's condition is known where the block is decoded. Classes:

    LOAD / STORE   single, dual, exclusive and multiple loads and stores, VLDR/VSTR/VLDM/VSTM/VPUSH/VPOP
                   (a multiple or dual transfer carries its extra registers as `beats`)
    MUL            32-bit multiplies and multiply-accumulates, the DSP extension's 16-bit and dual ones
                   (SMLAD, SMUAD, SMLABB...), SMMUL/SMMLA
    MULH           the 64-bit results: SMULL, UMULL, SMLAL, UMLAL, SMLALD, UMAAL
    DIV            SDIV, UDIV
    BRANCH_*       B<cond>, CBZ, CBNZ, and any instruction that writes the PC under an IT condition
    JUMP           B, BL, BLX, BX, TBB/TBH, and loads or moves into the PC outside an IT block
    FPU / FDIV     floating-point arithmetic, conversions and moves / VDIV, VSQRT
    ALU            everything else (IT and NOP included: the core issues them)

An instruction in an IT block whose condition fails is still issued by the core (it takes its slot, as a
NOP); the counter counts it, as Unicorn's translation block contains it.
"""

from __future__ import annotations

import functools

import capstone
from capstone import arm_const as A

from mote.sim.decode import Cls, Insn, Store

_LOADS = {A.ARM_INS_LDR, A.ARM_INS_LDRB, A.ARM_INS_LDRH, A.ARM_INS_LDRSB, A.ARM_INS_LDRSH, A.ARM_INS_LDRT,
          A.ARM_INS_LDRBT, A.ARM_INS_LDRHT, A.ARM_INS_LDRSBT, A.ARM_INS_LDRSHT, A.ARM_INS_LDREX, A.ARM_INS_LDREXB,
          A.ARM_INS_LDREXH, A.ARM_INS_VLDR, A.ARM_INS_LDA, A.ARM_INS_LDAB, A.ARM_INS_LDAH, A.ARM_INS_LDAEX,
          A.ARM_INS_LDAEXB, A.ARM_INS_LDAEXH, A.ARM_INS_PLD, A.ARM_INS_PLI}
_LOAD_MULTI = {A.ARM_INS_LDM, A.ARM_INS_LDMDB, A.ARM_INS_POP, A.ARM_INS_VLDMIA, A.ARM_INS_VLDMDB, A.ARM_INS_VPOP,
               A.ARM_INS_LDRD}
_STORES = {A.ARM_INS_STR, A.ARM_INS_STRB, A.ARM_INS_STRH, A.ARM_INS_STRT, A.ARM_INS_STRBT, A.ARM_INS_STRHT,
           A.ARM_INS_STREX, A.ARM_INS_STREXB, A.ARM_INS_STREXH, A.ARM_INS_VSTR, A.ARM_INS_STL, A.ARM_INS_STLB,
           A.ARM_INS_STLH, A.ARM_INS_STLEX, A.ARM_INS_STLEXB, A.ARM_INS_STLEXH}
_STORE_MULTI = {A.ARM_INS_STM, A.ARM_INS_STMDB, A.ARM_INS_PUSH, A.ARM_INS_VSTMIA, A.ARM_INS_VSTMDB, A.ARM_INS_VPUSH,
                A.ARM_INS_STRD}
_MUL = {A.ARM_INS_MUL, A.ARM_INS_MLA, A.ARM_INS_MLS, A.ARM_INS_SMLABB, A.ARM_INS_SMLABT, A.ARM_INS_SMLATB,
        A.ARM_INS_SMLATT, A.ARM_INS_SMLAD, A.ARM_INS_SMLADX, A.ARM_INS_SMLAWB, A.ARM_INS_SMLAWT, A.ARM_INS_SMLSD,
        A.ARM_INS_SMLSDX, A.ARM_INS_SMMLA, A.ARM_INS_SMMLAR, A.ARM_INS_SMMLS, A.ARM_INS_SMMLSR, A.ARM_INS_SMMUL,
        A.ARM_INS_SMMULR, A.ARM_INS_SMUAD, A.ARM_INS_SMUADX, A.ARM_INS_SMULBB, A.ARM_INS_SMULBT, A.ARM_INS_SMULTB,
        A.ARM_INS_SMULTT, A.ARM_INS_SMULWB, A.ARM_INS_SMULWT, A.ARM_INS_SMUSD, A.ARM_INS_SMUSDX}
_MULH = {A.ARM_INS_SMULL, A.ARM_INS_UMULL, A.ARM_INS_SMLAL, A.ARM_INS_UMLAL, A.ARM_INS_SMLALBB, A.ARM_INS_SMLALBT,
         A.ARM_INS_SMLALTB, A.ARM_INS_SMLALTT, A.ARM_INS_SMLALD, A.ARM_INS_SMLALDX, A.ARM_INS_SMLSLD,
         A.ARM_INS_SMLSLDX, A.ARM_INS_UMAAL}
_DIV = {A.ARM_INS_SDIV, A.ARM_INS_UDIV}
_FDIV = {A.ARM_INS_VDIV, A.ARM_INS_VSQRT}
_JUMPS = {A.ARM_INS_B, A.ARM_INS_BL, A.ARM_INS_BLX, A.ARM_INS_BX, A.ARM_INS_TBB, A.ARM_INS_TBH}
_CBZ = {A.ARM_INS_CBZ, A.ARM_INS_CBNZ}
# Armv6-M's 32-bit instructions; every other 32-bit encoding, IT and CBZ/CBNZ are Armv7-M's.
_ARMV6M_WIDE = {A.ARM_INS_BL, A.ARM_INS_MSR, A.ARM_INS_MRS, A.ARM_INS_DMB, A.ARM_INS_DSB, A.ARM_INS_ISB}
_ARMV7M_NARROW = {A.ARM_INS_IT, A.ARM_INS_CBZ, A.ARM_INS_CBNZ}


# Capstone's register ids -> the numbers Store operands use (r0..r12, sp, lr, pc: 0..15).
_REG_NUMBER = {getattr(A, f"ARM_REG_R{i}"): i for i in range(13)} | {A.ARM_REG_SP: 13, A.ARM_REG_LR: 14,
                                                                       A.ARM_REG_PC: 15}
_STORE_WIDTH = {A.ARM_INS_STR: 4, A.ARM_INS_STRH: 2, A.ARM_INS_STRB: 1}


def _store(insn: capstone.CsInsn) -> Store | None:
    """A single store with an immediate offset and no writeback, as its operands (the profiler's marks)."""
    width = _STORE_WIDTH.get(insn.id)
    ops = insn.operands
    if width is None or len(ops) != 2 or insn.writeback or ops[1].type != A.ARM_OP_MEM or ops[1].mem.index != 0:
        return None
    data, base = _REG_NUMBER.get(ops[0].reg), _REG_NUMBER.get(ops[1].mem.base)
    if data is None or base is None:
        return None
    return Store(base, data, ops[1].mem.disp, width)


@functools.cache
def _engine() -> capstone.Cs:
    md = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB | capstone.CS_MODE_MCLASS)
    md.detail = True
    return md


def _writes_pc(insn: capstone.CsInsn) -> bool:
    return any(op.type == A.ARM_OP_REG and op.reg == A.ARM_REG_PC for op in insn.operands[:1]) or (
        insn.id in (A.ARM_INS_POP, A.ARM_INS_LDM, A.ARM_INS_LDMDB)
        and any(op.type == A.ARM_OP_REG and op.reg == A.ARM_REG_PC for op in insn.operands))


def _classify(insn: capstone.CsInsn) -> tuple[Cls, int]:
    """(class, beats) of one decoded instruction."""
    i = insn.id
    conditional = insn.cc not in (A.ARM_CC_AL, A.ARM_CC_INVALID)
    beats = 0
    if i in _LOAD_MULTI or i in _STORE_MULTI:
        regs = [op for op in insn.operands if op.type == A.ARM_OP_REG]
        counted = len(regs) if i in (A.ARM_INS_POP, A.ARM_INS_PUSH, A.ARM_INS_VPOP, A.ARM_INS_VPUSH) else len(regs) - 1
        if i in (A.ARM_INS_LDRD, A.ARM_INS_STRD):
            counted = 2
        beats = max(counted - 1, 0)
    if i in _JUMPS or i in _CBZ or ((i in _LOADS or i in _LOAD_MULTI or i == A.ARM_INS_MOV or i == A.ARM_INS_ADD)
                                    and _writes_pc(insn)):
        if i in _CBZ or conditional:
            return Cls.BRANCH_NOT_TAKEN, beats
        return Cls.JUMP, beats
    if i in _LOADS or i in _LOAD_MULTI:
        return Cls.LOAD, beats
    if i in _STORES or i in _STORE_MULTI:
        return Cls.STORE, beats
    if i in _MUL:
        return Cls.MUL, 0
    if i in _MULH:
        return Cls.MULH, 0
    if i in _DIV:
        return Cls.DIV, 0
    if i in _FDIV:
        return Cls.FDIV, 0
    if insn.mnemonic.startswith("v"):
        return Cls.FPU, 0
    return Cls.ALU, 0


def thumb_size(halfword: int) -> int:
    """2 or 4: the length of the Thumb instruction whose first halfword is `halfword`."""
    return 4 if halfword >> 11 in (0x1D, 0x1E, 0x1F) else 2


def decode_block(addr: int, code: bytes, count: int | None = None) -> list[Insn]:
    """The instructions of `code` at `addr`: all of them, or the first `count`. Bytes Capstone cannot
    decode (none in compiled code) become ALU instructions of the length their first halfword says."""
    out: list[Insn] = []
    off = 0
    md = _engine()
    while off + 2 <= len(code) and (count is None or len(out) < count):
        decoded = False
        for insn in md.disasm(code[off:], addr + off, 0 if count is None else count - len(out)):
            cls, beats = _classify(insn)
            out.append(Insn(insn.address, insn.size, cls, _store(insn) if cls is Cls.STORE else None, beats))
            off += insn.size
            decoded = True
        if count is not None and len(out) >= count:
            break
        if off + 2 <= len(code):
            size = thumb_size(int.from_bytes(code[off:off + 2], "little"))
            out.append(Insn(addr + off, size, Cls.ALU))
            off += size
        elif not decoded:
            break
    return out


def mnemonics(addr: int, code: bytes) -> list[tuple[int, int, str]]:
    """(address, capstone id, text) of each instruction: for tests and messages."""
    return [(i.address, i.id, f"{i.mnemonic} {i.op_str}".strip()) for i in _engine().disasm(code, addr)]


def armv6m_illegal(insn: Insn, code: bytes) -> str | None:
    """Why the instruction `code` (its bytes) does not exist on an Armv6-M core, or None."""
    for i in _engine().disasm(code, insn.addr, 1):
        if (i.size == 4 and i.id not in _ARMV6M_WIDE) or i.id in _ARMV7M_NARROW:
            return f"{i.mnemonic} is not an Armv6-M instruction"
    return None
