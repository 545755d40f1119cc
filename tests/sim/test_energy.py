"""The energy model over exact counts: loads and stores per memory counted by address, and the
documented formula (mote.sim.energy) recomputed here by hand from the counted events."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from mote.sim.cycles import named_counts
from mote.sim.devices import Reg
from mote.sim.energy import EnergyEvents, accel_pj, accel_slot, between, energy
from mote.sim.energy import accesses as accesses_between
from mote.sim.machine import Machine
from mote.sim.platforms import AcceleratorSlot, Dma, builtin

# RUN_BEGIN; N times { load a flash constant, load a RAM word, add, store it back }; RUN_END.
# Between the marks: N loads from flash, N loads from RAM and N stores to RAM; the marks' own stores go
# to the device page, which no memory counts.
ACCESSES = """\
#include "mote_vp.h"
  .section .rodata
  .balign 4
constant:
  .word 3

  .section .noinit, "aw", @nobits
  .balign 4
  .globl loop_n
  .type loop_n, @object
loop_n:
  .space 4
  .size loop_n, 4
  .globl cell
  .type cell, @object
cell:
  .space 4
  .size cell, 4

  .text
  .globl main
  .type main, @function
main:
  la t3, loop_n
  lw t0, 0(t3)
  la t4, constant
  la t5, cell
  sw zero, 0(t5)
  li t2, MOTE_VP_RUN_BEGIN_ADDR
  sw zero, 0(t2)
1:
  lw t1, 0(t4)
  lw t6, 0(t5)
  add t6, t6, t1
  sw t6, 0(t5)
  addi t0, t0, -1
  bnez t0, 1b
  li t2, MOTE_VP_RUN_END_ADDR
  sw zero, 0(t2)
  li a0, 0
  ret
  .size main, . - main
"""


@pytest.fixture(scope="module")
def accesses(firmware: Callable[..., Machine]) -> Machine:
    return firmware({"accesses.S": ACCESSES})


def _span(machine: Machine, n: int) -> tuple[object, object, dict[str, int]]:
    ex = machine.run(writes={"loop_n": n.to_bytes(4, "little")}, reads=("cell",))
    assert int.from_bytes(ex.outputs["cell"], "little") == 3 * n  # the loop ran
    (b, _, cb), = [(mk.snapshot, k, c) for mk, k, c in ex.marks if mk.reg is Reg.RUN_BEGIN]
    (e, _, ce), = [(mk.snapshot, k, c) for mk, k, c in ex.marks if mk.reg is Reg.RUN_END]
    return b, e, named_counts(ce - cb)


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_loads_and_stores_per_memory_are_exact(accesses: Machine, n: int) -> None:
    begin, end, classes = _span(accesses, n)
    reads = [x - y for x, y in zip(end.reads, begin.reads)]
    writes = [x - y for x, y in zip(end.writes, begin.writes)]
    assert reads == [n, n, 0] and writes == [0, n, 0]  # (flash, ram, l1: this platform has none)
    assert classes["load"] == 2 * n and classes["store"] == n + 1  # + the RUN_END store, to the device page


def test_energy_is_the_documented_formula(accesses: Machine) -> None:
    n = 250
    begin, end, classes = _span(accesses, n)
    platform = builtin("mcu")
    got = between(platform, classes, begin, end)
    assert got is not None
    core, flash, ram = platform.compute, platform.memory("flash"), platform.memory("ram")
    insns = sum(classes.values())
    by_hand = (sum(count * core.energy_pj[name] for name, count in classes.items()) + insns * core.fetch_pj
               + n * flash.read_pj + n * ram.read_pj + n * ram.write_pj)
    assert got.total_pj == pytest.approx(by_hand, rel=1e-12)
    assert got.memory_pj == pytest.approx({"flash": n * flash.read_pj, "ram": n * (ram.read_pj + ram.write_pj)})
    assert got.uj == pytest.approx(by_hand / 1e6, rel=1e-12)
    # Scaling the platform's figures scales the energy.
    doubled = between(dataclasses.replace(platform, energy_scale=2.0), classes, begin, end)
    assert doubled is not None and doubled.total_pj == pytest.approx(2 * by_hand, rel=1e-12)


def test_every_term_of_the_formula() -> None:
    """DMA bytes and accelerator MACs and SRAM accesses, on a platform that has both."""
    platform = dataclasses.replace(builtin("mcu"), dma=(Dma("flash", "ram", byte_pj=1.5),),
                                   accelerators=(AcceleratorSlot("npu", ("ram",), mac_pj=0.25, sram_pj=2.0),))
    events = EnergyEvents({"alu": 10, "mul": 2, "load": 3}, {"flash": 1, "ram": 2}, {"ram": 5}, dma_bytes=64,
                          accel_macs=1000, accel_sram_bytes=320, accel_dma_bytes=16)
    core, flash, ram = platform.compute, platform.memory("flash"), platform.memory("ram")
    by_hand = (10 * core.energy_pj["alu"] + 2 * core.energy_pj["mul"] + 3 * core.energy_pj["load"] + 15 * core.fetch_pj
               + flash.read_pj + 2 * ram.read_pj + 5 * ram.write_pj + 64 * 1.5 + 1000 * 0.25 + 40 * 2.0
               + 16 * (100.0 + 2.0) / 8)
    assert energy(platform, events).total_pj == pytest.approx(by_hand, rel=1e-12)


def test_without_the_memory_hook_there_is_no_energy(firmware: Callable[..., Machine]) -> None:
    machine = firmware({"accesses.S": ACCESSES}, check_alignment=False)
    ex = machine.run(writes={"loop_n": (5).to_bytes(4, "little")})
    end = next(mk.snapshot for mk, _, _ in ex.marks if mk.reg is Reg.RUN_END)
    assert end.reads is None and between(builtin("mcu"), {"alu": 1}, None, end) is None


def test_wait_states_cost_cycles_per_access(accesses: Machine) -> None:
    """Each load and store waits its memory's wait states; the counts are the exact ones above."""
    n = 40
    begin, end, _ = _span(accesses, n)
    mcu = builtin("mcu")
    slow = dataclasses.replace(mcu, memories=(dataclasses.replace(mcu.memory("flash"), wait_states=2),
                                              dataclasses.replace(mcu.memory("ram"), wait_states=1)))
    counted = accesses_between(slow, begin, end)
    assert counted == ({"flash": n, "ram": n}, {"flash": 0, "ram": n})
    assert slow.stall_cycles(*counted) == 2 * n + 1 * (n + n)
    assert mcu.stall_cycles(*counted) == 0
    slow.check_simulated()  # wait states on one core are simulated


def test_the_accelerators_sram_price_by_its_size_unless_the_platform_sets_it() -> None:
    """accel_slot: a slot's own sram_pj wins; else the declared SRAM's size prices an access (log-log between
    Horowitz's 8 KB, 32 KB and 1 MB figures); else the 8 KB figure. A DMA byte is one RAM and one SRAM access
    per 8 bytes."""
    mcu = builtin("mcu")
    assert accel_slot(mcu, 32 << 10).sram_pj == pytest.approx(20.0)
    assert accel_slot(mcu, 1 << 20).sram_pj == pytest.approx(100.0)
    assert accel_slot(mcu, 0).sram_pj == pytest.approx(10.0)
    given = dataclasses.replace(mcu, accelerators=(AcceleratorSlot("npu", ("ram",), mac_pj=0.5, sram_pj=3.0),))
    slot = accel_slot(given, 1 << 20)
    assert slot.sram_pj == 3.0 and slot.mac_pj == 0.5
    assert accel_pj(slot, 10, 64, 16) == pytest.approx({"mac": 5.0, "sram": 8 * 3.0, "dma": 16 * (100.0 + 3.0) / 8})
    events = EnergyEvents({}, accel_macs=10, accel_sram_bytes=64, accel_dma_bytes=16, accel_traffic=True)
    spent = energy(given, events, slot)
    assert spent.accel_pj == pytest.approx(5.0 + 24.0 + 206.0) and spent.to_json()["accel_traffic"] == "sram_and_dma"
