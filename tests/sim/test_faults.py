"""Each fault stops the run with a one-line SimulationError naming the fault, the PC, the function
and the layer."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from mote.sim.faults import (
    ExitStatusError,
    IllegalInstructionError,
    MemoryAccessError,
    MisalignedAccessError,
    SimulationError,
    StackOverflowError,
    TrapError,
)
from mote.sim.machine import Machine

# One firmware, many ways to fail: the simulator writes `fault_mode` before reset.
FAULTS = r"""
#include <stdint.h>

__attribute__((section(".noinit"))) volatile uint32_t fault_mode;
volatile uint32_t sink;
static uint8_t bytes[16] __attribute__((aligned(4)));
static const uint32_t in_flash[4] = {1, 2, 3, 4};

__attribute__((noinline)) uint32_t load_unmapped(void) { return *(volatile uint32_t *)0x40000000u; }
__attribute__((noinline)) uint32_t load_null(void) { return *(volatile uint32_t *)0; }
__attribute__((noinline)) void store_unmapped(void) { *(volatile uint32_t *)0x40000010u = 7; }
__attribute__((noinline)) void store_flash(void) { *(volatile uint32_t *)(uintptr_t)&in_flash[1] = 7; }
__attribute__((noinline)) uint32_t load_misaligned(void) { return *(volatile uint32_t *)(void *)(bytes + 1); }
__attribute__((noinline)) void store_misaligned(void) { *(volatile uint16_t *)(void *)(bytes + 3) = 1; }
__attribute__((noinline)) void jump_unmapped(void) { ((void (*)(void))0x40000000u)(); }
__attribute__((noinline)) void unknown_register(void) { *(volatile uint32_t *)(MOTE_VP_DEVICE_BASE + 0x800) = 1; }
void illegal(void);
void do_ecall(void);
void do_ebreak(void);

/* Each frame is written by its callee, so all of them stay live: 64 x 512 bytes of stack. */
__attribute__((noinline)) uint32_t recurse(uint32_t depth, volatile uint8_t *parent) {
  volatile uint8_t frame[512];
  frame[0] = (uint8_t)depth;
  frame[1] = 0;
  if (parent) parent[1] = frame[0];
  uint32_t below = depth ? recurse(depth - 1, frame) : 0;
  return below + frame[1];
}

int main(void) {
  MOTE_LAYER_BEGIN(0);
  MOTE_LAYER_END(0);
  MOTE_LAYER_BEGIN(3);
  switch (fault_mode) {
    case 1: sink = load_unmapped(); break;
    case 2: sink = load_null(); break;
    case 3: store_unmapped(); break;
    case 4: store_flash(); break;
    case 5: sink = load_misaligned(); break;
    case 6: store_misaligned(); break;
    case 7: jump_unmapped(); break;
    case 8: illegal(); break;
    case 9: do_ecall(); break;
    case 10: do_ebreak(); break;
    case 11: sink = recurse(64, 0); return 0;
    case 12: unknown_register(); break;
    case 13: return 3;
    default: break;
  }
  MOTE_LAYER_END(3);
  sink = load_unmapped();  /* after the layers */
  return 0;
}
"""

TRAPS = """\
  .text
  .globl illegal
  .type illegal, @function
illegal:
  nop
  .globl illegal_insn
illegal_insn:
  unimp
  ret
  .size illegal, . - illegal

  .globl do_ecall
  .type do_ecall, @function
do_ecall:
  ecall
  ret
  .size do_ecall, . - do_ecall

  .globl do_ebreak
  .type do_ebreak, @function
do_ebreak:
  ebreak
  ret
  .size do_ebreak, . - do_ebreak
"""


@pytest.fixture(scope="module")
def machine(firmware: Callable[..., Machine]) -> Machine:
    return firmware({"faults.c": FAULTS, "traps.S": TRAPS})


def run(machine: Machine, mode: int) -> None:
    machine.run({"fault_mode": mode.to_bytes(4, "little")})


def fault(machine: Machine, mode: int, cls: type[SimulationError]) -> SimulationError:
    with pytest.raises(cls) as info:
        run(machine, mode)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("rv32 simulation: ")
    return info.value


def test_load_from_unmapped_memory(machine: Machine) -> None:
    err = fault(machine, 1, MemoryAccessError)
    assert re.search(r"load from unmapped address 0x40000000 \(4-byte load\) at pc 0x8[0-9a-f]{7} "
                     r"in load_unmapped(\+0x[0-9a-f]+)? \(layer 3\)$", str(err)), str(err)
    start, size = machine.image.symbol("load_unmapped")
    assert err.pc is not None and start <= err.pc < start + size


def test_null_pointer(machine: Machine) -> None:
    err = fault(machine, 2, MemoryAccessError)
    assert "unmapped address 0x00000000" in str(err) and "in load_null" in str(err)


def test_store_to_unmapped_memory(machine: Machine) -> None:
    assert "store to unmapped address 0x40000010" in str(fault(machine, 3, MemoryAccessError))


def test_store_to_flash(machine: Machine) -> None:
    err = fault(machine, 4, MemoryAccessError)
    assert "store to read-only memory (flash)" in str(err) and "in store_flash" in str(err)


def test_misaligned_load_and_store(machine: Machine) -> None:
    err = fault(machine, 5, MisalignedAccessError)
    bytes_addr = machine.image.symbol("bytes")[0]
    assert f"misaligned 4-byte load at address 0x{bytes_addr + 1:08x}" in str(err)
    assert "in load_misaligned" in str(err) and "(layer 3)" in str(err)
    assert "misaligned 2-byte store" in str(fault(machine, 6, MisalignedAccessError))


def test_misaligned_access_passes_without_the_check(firmware: Callable[..., Machine]) -> None:
    lenient = firmware({"faults.c": FAULTS, "traps.S": TRAPS}, check_alignment=False)
    with pytest.raises(MemoryAccessError, match=r"in load_unmapped\+0x[0-9a-f]+ \(after layer 3\)"):
        run(lenient, 5)


def test_jump_to_unmapped_memory(machine: Machine) -> None:
    err = fault(machine, 7, MemoryAccessError)
    assert "instruction fetch from unmapped address 0x40000000 (jumped to from jump_unmapped" in str(err)
    assert err.pc == 0x40000000


def test_illegal_instruction(machine: Machine) -> None:
    err = fault(machine, 8, IllegalInstructionError)
    assert err.pc == machine.image.symbol("illegal_insn")[0]
    assert "illegal instruction at pc" in str(err) and "(layer 3)" in str(err)


def test_ecall_and_ebreak(machine: Machine) -> None:
    err = fault(machine, 9, TrapError)
    assert "ecall" in str(err) and err.pc == machine.image.symbol("do_ecall")[0]
    err = fault(machine, 10, TrapError)
    assert "ebreak" in str(err) and err.pc == machine.image.symbol("do_ebreak")[0]


def test_stack_overflow(machine: Machine) -> None:
    assert "stack overflow" in str(fault(machine, 11, StackOverflowError))


def test_unknown_device_register(machine: Machine) -> None:
    assert "unknown device register 0x10000800" in str(fault(machine, 12, MemoryAccessError))


def test_non_zero_exit_status(machine: Machine) -> None:
    assert "exited with status 3" in str(fault(machine, 13, ExitStatusError))


def test_fault_after_the_layers(machine: Machine) -> None:
    assert str(fault(machine, 0, MemoryAccessError)).endswith("(after layer 3)")
