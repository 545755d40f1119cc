"""The cluster's one Unicorn instance (mote.sim.cluster_engine): every core runs on it, each keeps its own
registers (integer and float) across the barriers, and switching by the ISA's register list counts exactly
what switching Unicorn's whole context does."""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
import unicorn as uc_mod

from mote.sim import cluster_engine
from mote.sim.machine import Machine
from mote.targets.host import find_cc
from mote.targets.rv32 import Rv32Config, build_custom_firmware

# Each core keeps values of its own in registers across three barriers (the loop calls mote_barrier, so
# the compiler keeps `a` and `f` in callee-saved registers); any core seeing another's registers after a
# switch computes a wrong value.
MAIN = r"""
#include <stdint.h>
#include "mote_cluster.h"
volatile int32_t ints[8];
volatile float floats[8];
static int work(uint32_t core) {
  int32_t a = (int32_t)core * 1000 + 7;
  float f = (float)core * 1.5f + 0.25f;
  for (int i = 0; i < 3; ++i) {
    mote_barrier();
    a = a * 3 + (int32_t)core;
    f = f * 2.0f + (float)core;
  }
  ints[core] = a;
  floats[core] = f;
  return 0;
}
int main(void) {
  MOTE_VP_RUN_BEGIN();
  int status = mote_fork(work);
  MOTE_VP_RUN_END();
  return status;
}
"""


def _expected(cores: int) -> tuple[list[int], list[float]]:
    ints, floats = [], []
    for core in range(cores):
        a, f = core * 1000 + 7, core * 1.5 + 0.25
        for _ in range(3):
            a, f = a * 3 + core, f * 2.0 + core
        ints.append(a)
        floats.append(f)
    return ints, floats


@pytest.fixture(scope="module")
def machines(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Machine]:
    root = tmp_path_factory.mktemp("engine")

    def build(isa: str) -> Machine:
        cfg = Rv32Config(cc="zig", cores=4, isa=isa)
        fw = build_custom_firmware({"main.c": MAIN}, root / isa, cfg)
        return Machine(fw.elf, cfg.memory_map(), True, host_cc=find_cc(), fpu=isa == "rv32imfc")

    return build


@pytest.mark.parametrize("isa", ["rv32imc", "rv32imfc"])
def test_each_core_keeps_its_registers(machines: Callable[[str], Machine], isa: str) -> None:
    machine = machines(isa)
    assert machine.isa.core_regs  # switched by the register list, not Unicorn's context
    cx = machine.run_cluster(4, reads=("ints", "floats"))
    ints, floats = _expected(4)
    assert list(struct.unpack("<8i", cx.execution.outputs["ints"]))[:4] == ints
    assert list(struct.unpack("<8f", cx.execution.outputs["floats"]))[:4] == floats
    assert cx.barriers == 2 + 3  # the fork, three barriers in the task, the join


def test_one_instance_for_every_core(machines: Callable[[str], Machine], monkeypatch: pytest.MonkeyPatch) -> None:
    created = []
    real = cluster_engine.uc_mod.Uc

    def counted(*args: object) -> uc_mod.Uc:
        created.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cluster_engine.uc_mod, "Uc", counted)
    machines("rv32imc").run_cluster(4)
    assert len(created) == 1


def test_register_list_counts_as_the_whole_context(machines: Callable[[str], Machine], tmp_path: Path) -> None:
    """The fast switch (the ISA's core_regs) and Unicorn's context save and restore: the same counts at
    every barrier of every core, and the same results."""
    machine = machines("rv32imfc")
    fast = machine.run_cluster(4, reads=("ints", "floats"))
    machine.isa = dataclasses.replace(machine.isa, core_regs=())
    slow = machine.run_cluster(4, reads=("ints", "floats"))
    assert fast.execution.outputs == slow.execution.outputs
    for a, b in zip(fast.traces, slow.traces):
        assert [s.instructions for s in a.arrivals] == [s.instructions for s in b.arrivals]
        assert a.end is not None and b.end is not None and a.end.instructions == b.end.instructions
