"""Exact instruction counts on the Cortex-M cores: the native block counts against Unicorn's
per-instruction trace on compiled Thumb-2 code with IT blocks, calls, division and profiler marks.

Unicorn's code hook does not fire for an instruction of an IT block whose condition fails; the core
still issues it, and the counter counts it. The trace is completed with those instructions here, from
the IT instructions it holds, so the two agree only if both count them as the core issues them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import unicorn

from mote.sim.decode import Cls, Insn
from mote.sim.devices import DEVICE_BASE, DEVICE_BYTES, Reg
from mote.sim.isa import cortex_m
from mote.sim.machine import Machine
from mote.sim.thumb import decode_block, mnemonics
from mote.targets.cortexm import CortexMConfig, build_custom_firmware
from mote.targets.cortexm.firmware import machine

# Clamps and conditional stores (IT blocks on Armv7-M), a division, a call, a copy, profiler marks.
PROGRAM = r"""
#include <stdint.h>
#include <string.h>

static int32_t table[24];
static const int8_t pattern[16] = {3, -1, 4, -1, 5, -9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};
volatile int32_t sink;
volatile int32_t odd;

__attribute__((noinline)) static int32_t clamp8(int32_t v) { return v > 127 ? 127 : v < -128 ? -128 : v; }

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
    for (int i = 0; i < 24; ++i) {
      int32_t v = collatz((uint32_t)(i + 7 * layer + 1)) / (layer + 1);
      table[i] = clamp8(v * 9 - 100);
      if (v & 1) odd = v;
    }
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


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Machine]:
    root: Path = tmp_path_factory.mktemp("thumb")

    def make(cpu: str) -> Machine:
        config = CortexMConfig(cpu=cpu, cc="zig")
        fw = build_custom_firmware({"program.c": PROGRAM}, root / cpu, config)
        return machine(fw.elf, config)

    return make


class Code:
    """The firmware's instructions one at a time, decoded once per address."""

    def __init__(self, m: Machine) -> None:
        self.m = m
        self.insns: dict[int, Insn] = {}
        self.texts: dict[int, str] = {}

    def insn(self, addr: int) -> Insn:
        if addr not in self.insns:
            self.insns[addr] = decode_block(addr, self.m.code_at(addr), 1)[0]
        return self.insns[addr]

    def text(self, addr: int) -> str:
        if addr not in self.texts:
            self.texts[addr] = mnemonics(addr, self.m.code_at(addr))[0][2]
        return self.texts[addr]


def _it_length(text: str) -> int:
    """The instructions an IT instruction covers: 'it' 1, 'itt'/'ite' 2, ..."""
    return len(text.split()[0]) - 1


def completed_trace(code: Code, trace: list[int]) -> list[tuple[int, bool]]:
    """The trace with the skipped instructions of its IT blocks put back: (address, executed)."""
    out: list[tuple[int, bool]] = []
    i = 0
    while i < len(trace):
        addr = trace[i]
        out.append((addr, True))
        i += 1
        text = code.text(addr)
        if not text.startswith("it"):
            continue
        nxt = addr + 2
        for _ in range(_it_length(text)):
            insn = code.insn(nxt)
            executed = i < len(trace) and trace[i] == nxt
            out.append((nxt, executed))
            i += executed
            nxt += insn.size
    return out


def truth(code: Code, issued: list[tuple[int, bool]]) -> dict[int, np.ndarray]:
    """Cumulative class counts (and beats) after every prefix of the issued instructions. Classes are
    decoded in each IT block's context (a conditional return is a branch); a branch is taken when the
    next issued instruction is not the one after it."""
    context: dict[int, Insn] = {}
    for addr in {a for a, _ in issued}:
        text = code.text(addr)
        if text.startswith("it"):
            for insn in decode_block(addr, code.m.code_at(addr, 20), 1 + _it_length(text)):
                context[insn.addr] = insn
    counts = np.zeros(len(Cls) + 1, dtype=np.int64)
    out = {0: counts.copy()}
    for k, (addr, _) in enumerate(issued):
        insn = context.get(addr) or code.insn(addr)
        cls = insn.cls
        if cls is Cls.BRANCH_NOT_TAKEN and k + 1 < len(issued) and issued[k + 1][0] != addr + insn.size:
            cls = Cls.BRANCH_TAKEN
        counts[cls] += 1
        counts[-1] += insn.beats
        out[k + 1] = counts.copy()
    return out


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m0plus"])
def test_counts_match_a_per_instruction_trace(build: Callable[[str], Machine], cpu: str) -> None:
    m = build(cpu)
    code = Code(m)
    trace: list[int] = []
    stores: list[int] = []  # trace positions of the stores to the device page (the store itself included)
    regs = cortex_m(cpu).regs
    assert regs is not None

    def on_code(uc: unicorn.Uc, addr: int, size: int, _d: object) -> None:
        trace.append(addr)
        insn = code.insn(addr)
        if insn.store is not None:
            r = regs(uc)
            if DEVICE_BASE <= (r[insn.store.rs1] + insn.store.imm) & 0xFFFFFFFF < DEVICE_BASE + DEVICE_BYTES:
                stores.append(len(trace))

    ex = m.run(instrument=lambda uc: uc.hook_add(unicorn.UC_HOOK_CODE, on_code))
    issued = completed_trace(code, trace)
    skipped = sum(not executed for _, executed in issued)
    if cpu == "cortex-m4":
        assert skipped > 0  # the program has IT blocks whose condition failed, which the core issued
    else:
        assert skipped == 0 and not any(code.text(a).startswith("it") for a in set(trace))
    position = {}  # trace index -> issued index
    n = 0
    for k, (_, executed) in enumerate(issued):
        n += executed
        if executed:
            position[n] = k + 1
    expected = truth(code, issued)
    assert ex.instructions == position[stores[-1]]  # the exit store
    assert [c for _, c, _ in ex.marks] == [position[s] for s in stores[:-1]]
    for _, c, classes in ex.marks:
        assert classes.tolist() == expected[c].tolist()
    assert ex.class_counts.tolist() == expected[ex.instructions].tolist()
    assert [mk.reg for mk, _, _ in ex.marks].count(Reg.LAYER_BEGIN) == 3
