"""The RV32IMC decoder: lengths, classes and store operands of known encodings."""

from __future__ import annotations

import pytest

from mote.sim.decode import Cls, Store, decode_block

# (bytes as the assembler emits them, class, store operands or None)
CASES = [
    ("2326f4fe", Cls.STORE, Store(rs1=8, rs2=15, imm=-20, width=4)),     # sw a5, -20(s0)
    ("a30f657e", Cls.STORE, Store(rs1=10, rs2=6, imm=2047, width=1)),    # sb t1, 2047(a0)
    ("23107180", Cls.STORE, Store(rs1=2, rs2=7, imm=-2048, width=2)),    # sh t2, -2048(sp)
    ("7cdd", Cls.STORE, Store(rs1=10, rs2=15, imm=124, width=4)),        # c.sw a5, 124(a0)
    ("b2df", Cls.STORE, Store(rs1=2, rs2=12, imm=252, width=4)),         # c.swsp a2, 252(sp)
    ("c841", Cls.LOAD, None),                                            # c.lw a0, 4(a1)
    ("b240", Cls.LOAD, None),                                            # c.lwsp ra, 12(sp)
    ("03a54500", Cls.LOAD, None),                                        # lw a0, 4(a1)
    ("3385c502", Cls.MUL, None),                                         # mul
    ("3395c502", Cls.MULH, None),                                        # mulh
    ("33b5c502", Cls.MULH, None),                                        # mulhu
    ("33d5c502", Cls.DIV, None),                                         # divu
    ("33e5c502", Cls.DIV, None),                                         # rem
    ("6300b500", Cls.BRANCH_NOT_TAKEN, None),                            # beq
    ("01e1", Cls.BRANCH_NOT_TAKEN, None),                                # c.bnez
    ("0120", Cls.JUMP, None),                                            # c.jal
    ("ef000000", Cls.JUMP, None),                                        # jal ra
    ("67800000", Cls.JUMP, None),                                        # jalr zero, 0(ra)
    ("01a0", Cls.JUMP, None),                                            # c.j
    ("8280", Cls.JUMP, None),                                            # c.jr ra
    ("0295", Cls.JUMP, None),                                            # c.jalr a0
    ("2e85", Cls.ALU, None),                                             # c.mv
    ("2e95", Cls.ALU, None),                                             # c.add
    ("0290", Cls.ALU, None),                                             # c.ebreak
    ("3385c500", Cls.ALU, None),                                         # add
    ("37553412", Cls.ALU, None),                                         # lui
    ("732500b0", Cls.ALU, None),                                         # csrr mcycle
]


@pytest.mark.parametrize(("hexcode", "cls", "store"), CASES, ids=[c[0] for c in CASES])
def test_decode_one(hexcode: str, cls: Cls, store: Store | None) -> None:
    (insn,) = decode_block(0x8000_0000, bytes.fromhex(hexcode))
    assert insn.size == len(hexcode) // 2
    assert insn.cls is cls
    assert insn.store == store


def test_decode_mixed_lengths() -> None:
    code = bytes.fromhex("".join(c[0] for c in CASES))
    insns = decode_block(0x8000_0000, code)
    assert [i.cls for i in insns] == [c[1] for c in CASES]
    assert insns[-1].addr == 0x8000_0000 + len(code) - 4
    assert len(decode_block(0x8000_0000, code, count=5)) == 5
