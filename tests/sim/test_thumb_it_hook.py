"""The memory hook on Armv7-M: Unicorn 2.1 leaves the IT state of a hooked load behind for the next translation
block (unicorn-engine/unicorn#2309), and mote_count.c's hook repairs it by clearing the xPSR's IT bits.

The program: `cmp r6, #0; itte ne; ldrne r0, [r3]; addne r2, #1; addeq r2, #100; b <next>; cmp r4, #3;
bcc 1f; movs r5, #1; b .; 1: movs r5, #2; b .` after `pad` NOPs. The `b <next>` ends the translation block,
so the `bcc` starts a new one; with r4 = 5 it is not taken and r5 ends 1."""

from __future__ import annotations

import struct

import pytest
import unicorn
from unicorn import arm_const as arm
from unicorn.unicorn_py3 import unicorn as uc_impl

from mote.sim.counting import Counter, native_hooks
from mote.sim.isa import ALIGN_ARMV7M, LENGTH_THUMB, cortex_m
from mote.targets.host import find_cc

RAM = 0x2000_0000
LOADED = 42


def _program(pad: int) -> tuple[bytes, int]:
    """The code and the address of its final `b .` when the branch is not taken."""
    head = struct.pack("<H", 0x2E00) + struct.pack("<H", 0xBF00) * pad
    tail = struct.pack("<11H", 0xBF1A, 0x6818, 0x3201, 0x3264, 0xE7FF, 0x2C03, 0xD301, 0x2501, 0xE7FE, 0x2502,
                       0xE7FE)
    return head + tail, len(head) + 16


def _engine(code: bytes, r6: int) -> unicorn.Uc:
    uc = unicorn.Uc(unicorn.UC_ARCH_ARM, unicorn.UC_MODE_THUMB | unicorn.UC_MODE_MCLASS)
    uc.ctl_set_cpu_model(arm.UC_CPU_ARM_CORTEX_M4)
    uc.mem_map(0, 0x2000)
    uc.mem_map(RAM, 0x1000)
    uc.mem_write(0, code)
    uc.mem_write(RAM, struct.pack("<I", LOADED))
    for reg, value in ((arm.UC_ARM_REG_R3, RAM), (arm.UC_ARM_REG_R4, 5), (arm.UC_ARM_REG_R6, r6)):
        uc.reg_write(reg, value)
    return uc


def _result(uc: unicorn.Uc, end: int) -> tuple[list[int], int | None]:
    try:
        uc.emu_start(1, end, count=5000)
    except unicorn.UcError as e:
        return [], e.errno
    return [int(uc.reg_read(r)) for r in (arm.UC_ARM_REG_R0, arm.UC_ARM_REG_R2, arm.UC_ARM_REG_R5)], None


def test_a_hooked_load_in_an_it_block_breaks_the_next_block() -> None:
    """The loss itself, with a plain Python memory hook: without a hook the program runs; with one, the next
    block's B<cond> is translated as if inside an IT block, an undefined instruction."""
    code, end = _program(0)
    assert _result(_engine(code, 1), end) == ([LOADED, 1, 1], None)
    hooked = _engine(code, 1)
    hooked.hook_add(unicorn.UC_HOOK_MEM_READ, lambda *args: None)
    assert _result(hooked, end)[1] == unicorn.UC_ERR_INSN_INVALID


@pytest.mark.parametrize("repair", [True, False])
@pytest.mark.parametrize("pad", [0, (0xFFC - 2) // 2])  # the IT block in one block; across a page (two blocks)
@pytest.mark.parametrize("r6", [0, 1])
def test_the_native_hook_repairs_it(repair: bool, pad: int, r6: int) -> None:
    code, end = _program(pad)
    uc = _engine(code, r6)
    counter = Counter(uc_impl.uclib, arm.UC_ARM_REG_PC, find_cc())
    try:
        counter.state.length_rule = LENGTH_THUMB
        counter.state.it_regid = arm.UC_ARM_REG_XPSR if repair else -1
        counter.state.align_rule = ALIGN_ARMV7M
        counter.count_regions([(RAM, RAM + 0x1000)])
        hooks = native_hooks(uc, counter, counter.user_data, memory=True)
        assert len(hooks) == 2
        registers, error = _result(uc, end)
        loads = int(counter.state.reads[0])
    finally:
        counter.close()
    expected = [LOADED, 1, 1] if r6 else [0, 100, 1]
    if repair or r6 == 0 or pad:  # no load in the IT block, or the block ended inside it: nothing goes stale
        assert (registers, error) == (expected, None)
        assert loads == r6
    else:
        assert error == unicorn.UC_ERR_INSN_INVALID


def test_armv7m_cores_repair_armv6m_has_nothing_to_repair() -> None:
    for cpu in ("cortex-m4", "cortex-m7", "cortex-m33"):
        isa = cortex_m(cpu)
        assert isa.memory_hook and isa.it_state_reg == arm.UC_ARM_REG_XPSR and isa.align_rule == ALIGN_ARMV7M
    m0 = cortex_m("cortex-m0plus")
    assert m0.memory_hook and m0.it_state_reg == -1 and m0.align_rule != ALIGN_ARMV7M
