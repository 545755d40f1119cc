"""Exact instruction counts: closed forms on hand-written loops, a per-instruction trace on compiled
code, repeatability, speed."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import unicorn

from mote.sim.cycles import CoreModel
from mote.sim.decode import Cls, decode_block
from mote.sim.devices import DEVICE_BASE, DEVICE_BYTES, Reg
from mote.sim.faults import InstructionLimitError
from mote.sim.machine import Machine

# RUN_BEGIN; t1 = 0; N times { t1 += 1; t0 -= 1; branch back }; RUN_END.
# Between the two marks: li (1) + 3 per iteration + li of the RUN_END address (lui+addi, 2) + its store (1).
LOOP = """\
#include "mote_vp.h"
  .section .noinit, "aw", @nobits
  .balign 4
  .globl loop_n
  .type loop_n, @object
loop_n:
  .space 4
  .size loop_n, 4

  .text
  .globl main
  .type main, @function
main:
  la t3, loop_n
  lw t0, 0(t3)
  li t2, MOTE_VP_RUN_BEGIN_ADDR
  sw zero, 0(t2)
  li t1, 0
1:
  addi t1, t1, 1
  addi t0, t0, -1
  bnez t0, 1b
  li t2, MOTE_VP_RUN_END_ADDR
  sw zero, 0(t2)
  li a0, 0
  ret
  .size main, . - main
"""

# RUN_BEGIN; M times { a0 = K; jal leaf (K iterations of 2, then ret) ; s1 -= 1; branch back }; RUN_END.
NESTED = """\
#include "mote_vp.h"
  .section .noinit, "aw", @nobits
  .balign 4
  .globl outer_m
  .type outer_m, @object
outer_m:
  .space 4
  .size outer_m, 4
  .globl inner_k
  .type inner_k, @object
inner_k:
  .space 4
  .size inner_k, 4

  .text
  .globl main
  .type main, @function
main:
  mv s0, ra
  la t3, outer_m
  lw s1, 0(t3)
  la t3, inner_k
  lw s2, 0(t3)
  li t2, MOTE_VP_RUN_BEGIN_ADDR
  sw zero, 0(t2)
2:
  mv a0, s2
  jal ra, leaf
  addi s1, s1, -1
  bnez s1, 2b
  li t2, MOTE_VP_RUN_END_ADDR
  sw zero, 0(t2)
  mv ra, s0
  li a0, 0
  ret
  .size main, . - main

  .type leaf, @function
leaf:
  addi a0, a0, -1
  bnez a0, leaf
  ret
  .size leaf, . - leaf
"""

# Compiled code with calls, division, memcpy, a data-dependent branch, and profiler marks.
PROGRAM = r"""
#include <stdint.h>
#include <string.h>

static int32_t table[64];
static const int8_t pattern[16] = {3, -1, 4, -1, 5, -9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};
volatile int32_t sink;

__attribute__((noinline)) static int32_t collatz(uint32_t n) {
  int32_t steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

int main(void) {
  for (int layer = 0; layer < 3; ++layer) {
    MOTE_LAYER_BEGIN(layer);
    for (int i = 0; i < 64; ++i) table[i] = collatz((uint32_t)(i + 7 * layer + 1)) / (layer + 1);
    int8_t copy[16];
    memcpy(copy, pattern, sizeof copy);
    int32_t acc = 0;
    for (int i = 0; i < 16; ++i) acc += copy[i] * table[i] % 7;
    sink = acc;
    MOTE_LAYER_END(layer);
  }
  return 0;
}
"""


def span(ex: object) -> tuple[int, np.ndarray]:
    """Instructions and class counts between RUN_BEGIN and RUN_END."""
    marks = {mark.reg: (n, c) for mark, n, c in ex.marks}  # type: ignore[attr-defined]
    (n0, c0), (n1, c1) = marks[Reg.RUN_BEGIN], marks[Reg.RUN_END]
    return n1 - n0, c1 - c0


@pytest.fixture(scope="module", params=[True, False], ids=["pc-exact", "decoded"])
def loop(request: pytest.FixtureRequest, firmware: Callable[..., Machine]) -> Machine:
    return firmware({"loop.S": LOOP}, check_alignment=request.param)


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 123_457])
def test_loop_count_is_exact(loop: Machine, n: int) -> None:
    ex = loop.run({"loop_n": n.to_bytes(4, "little")})
    insns, classes = span(ex)
    assert insns == 3 * n + 4
    expected = np.zeros(len(Cls) + 1, dtype=np.int64)  # the classes, then the beats (none on RV32)
    expected[Cls.ALU] = 2 * n + 3
    expected[Cls.STORE] = 1
    expected[Cls.BRANCH_TAKEN] = n - 1
    expected[Cls.BRANCH_NOT_TAKEN] = 1
    assert classes.tolist() == expected.tolist()
    # Default core: alu 1, store 1, taken branch 3, not-taken branch 1.
    assert CoreModel().cycles(classes) == (2 * n + 3) + 1 + 3 * (n - 1) + 1
    flat = CoreModel(load=1, mulh=1, div=1, branch_taken=1, jump=1)
    assert flat.cycles(classes) == insns


@pytest.mark.parametrize(("m", "k"), [(1, 1), (3, 5), (40, 1), (17, 250)])
def test_nested_calls_count_is_exact(firmware: Callable[..., Machine], m: int, k: int) -> None:
    machine = firmware({"nested.S": NESTED}, check_alignment=False)
    ex = machine.run({"outer_m": m.to_bytes(4, "little"), "inner_k": k.to_bytes(4, "little")})
    insns, classes = span(ex)
    # Per outer iteration: mv, jal, 2k in leaf, ret, addi, branch. Then lui+addi+sw of RUN_END.
    assert insns == m * (2 * k + 5) + 3
    assert classes[Cls.JUMP] == 2 * m
    assert classes[Cls.BRANCH_TAKEN] == m * (k - 1) + (m - 1)
    assert classes[Cls.BRANCH_NOT_TAKEN] == m + 1
    assert classes[Cls.STORE] == 1


@pytest.mark.parametrize("check_alignment", [True, False], ids=["pc-exact", "decoded"])
def test_counts_match_a_per_instruction_trace(firmware: Callable[..., Machine], check_alignment: bool) -> None:
    """The native block counts against Unicorn's per-instruction code hook, at every profiler mark and
    at the exit store, per class, in both ways of locating the marking store."""
    machine = firmware({"program.c": PROGRAM}, check_alignment=check_alignment)
    trace: list[int] = []
    stores: list[int] = []  # trace length at each device store (that store included)

    def instrument(uc: unicorn.Uc) -> None:
        uc.hook_add(unicorn.UC_HOOK_CODE, lambda _uc, addr, _size, _d: trace.append(addr))
        uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, lambda *_a: stores.append(len(trace)),
                    begin=DEVICE_BASE, end=DEVICE_BASE + DEVICE_BYTES - 1)

    ex = machine.run(instrument=instrument)
    assert ex.exact
    truth = trace_classes(machine, trace)
    assert [n for _, n, _ in ex.marks] + [ex.instructions] == stores
    for _, n, classes in ex.marks:
        assert classes.tolist() == truth[n].tolist()
    assert ex.class_counts.tolist() == truth[ex.instructions].tolist()
    assert len(ex.marks) == 6


def trace_classes(machine: Machine, trace: list[int]) -> dict[int, np.ndarray]:
    """Cumulative class counts after every prefix of the trace; a branch is taken when the next
    instruction is not the one after it."""
    decoded = {a: decode_block(a, bytes(machine.flash[a - machine.memory.flash_base:][:4]), 1)[0]
               for a in set(trace)}
    counts = np.zeros(len(Cls) + 1, dtype=np.int64)  # the classes, then the beats (none on RV32)
    out = {0: counts.copy()}
    for i, addr in enumerate(trace):
        insn = decoded[addr]
        cls = insn.cls
        if cls is Cls.BRANCH_NOT_TAKEN and i + 1 < len(trace) and trace[i + 1] != addr + insn.size:
            cls = Cls.BRANCH_TAKEN
        counts[cls] += 1
        out[i + 1] = counts.copy()
    return out


def chain(blocks: int) -> str:
    """RUN_BEGIN, then `blocks` distinct two-instruction blocks (addi; jump to the next), RUN_END."""
    body = "".join(f"  addi t0, t0, 1\n  j b{i}\nb{i}:\n" for i in range(blocks))
    return ('#include "mote_vp.h"\n  .text\n  .globl main\n  .type main, @function\nmain:\n'
            "  li t2, MOTE_VP_RUN_BEGIN_ADDR\n  sw zero, 0(t2)\n" + body +
            "  li t2, MOTE_VP_RUN_END_ADDR\n  sw zero, 0(t2)\n  li a0, 0\n  ret\n  .size main, . - main\n")


def test_block_table_grows(firmware: Callable[..., Machine]) -> None:
    """5000 distinct blocks: the native hash table doubles twice on the way, losing nothing."""
    ex = firmware({"chain.S": chain(5000)}, check_alignment=False).run()
    insns, classes = span(ex)
    assert insns == 2 * 5000 + 3
    assert classes[Cls.JUMP] == 5000 and classes[Cls.ALU] == 5000 + 2


def test_runs_are_repeatable(loop: Machine) -> None:
    a = loop.run({"loop_n": (5000).to_bytes(4, "little")})
    b = loop.run({"loop_n": (5000).to_bytes(4, "little")})
    assert a.instructions == b.instructions
    assert a.class_counts.tolist() == b.class_counts.tolist()
    assert [n for _, n, _ in a.marks] == [n for _, n, _ in b.marks]


def test_instruction_limit_stops_runaway_code(loop: Machine) -> None:
    with pytest.raises(InstructionLimitError, match=r"instruction limit of 10,000 exceeded at pc 0x[0-9a-f]+ in main"):
        loop.run({"loop_n": (10**6).to_bytes(4, "little")}, instruction_limit=10_000)


def test_simulation_is_fast(firmware: Callable[..., Machine]) -> None:
    """Tens of millions of instructions in well under a second (hundreds of MIPS on a laptop)."""
    machine = firmware({"loop.S": LOOP}, check_alignment=False)
    ex = machine.run({"loop_n": (10**7).to_bytes(4, "little")})
    assert ex.instructions > 3 * 10**7
    assert ex.mips > 50, f"{ex.mips:.0f} MIPS"
