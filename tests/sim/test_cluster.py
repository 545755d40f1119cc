"""The cluster on the virtual platform (mote.sim.cluster, mote.sim.cluster_clock): exact per-core counts over
shared memory, a deterministic schedule, the barrier's cycle accounting, a fault naming its core."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import unicorn as uc_mod

from mote.sim import cluster as cluster_mod
from mote.sim.cluster_clock import BARRIER_CYCLES, replay
from mote.sim.counting import ClassTally
from mote.sim.cycles import CoreModel
from mote.sim.faults import MemoryAccessError
from mote.sim.machine import Machine

MAIN = r"""
#include <stdint.h>
#include "mote_cluster.h"
static volatile int32_t out[64];
static volatile int32_t *volatile bad;
static int work(uint32_t core) {
  /* an uneven share: core k adds 10 + 10 k products into each element it owns (volatile: no closed form) */
  for (int i = (int)core; i < 64; i += MOTE_VP_CORES) {
    out[i] = 0;
    for (int k = 0; k < 10 + 10 * (int)core; ++k) out[i] += k * i;
  }
  if ((int)core == FAULTY) return *bad;
  return 0;
}
int main(void) {
  MOTE_VP_RUN_BEGIN();
  MOTE_LAYER_BEGIN(0);
  int status = mote_fork(work);
  MOTE_LAYER_END(0);
  MOTE_VP_RUN_END();
  int32_t sum = 0;
  for (int i = 0; i < 64; ++i) sum += out[i];
  return status + (sum != SUM);
}
"""


def _source(cores: int, faulty: int = -1) -> dict[str, str]:
    expect = sum(sum(k * i for k in range(10 + 10 * (i % cores))) for i in range(64))
    expect = (expect + 2**31) % 2**32 - 2**31
    return {"main.c": f"#define FAULTY {faulty}\n#define SUM ({expect})\n" + MAIN}


def _traced(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """Count every instruction of every core with a per-instruction hook (the reference for the native counts).
    The cores share one Unicorn instance: each core's hook counts while that core is the one running."""
    counts: dict[int, int] = {}
    init = cluster_mod.CoreRun.__init__

    def counted(self: cluster_mod.CoreRun, *args: object) -> None:
        init(self, *args)  # type: ignore[arg-type]
        core = self.core
        counts[core] = 0

        def hook(uc: uc_mod.Uc, addr: int, size: int, data: object) -> None:
            if self.engine.live is self:
                counts[core] += 1

        self.uc.hook_add(uc_mod.UC_HOOK_CODE, hook)

    monkeypatch.setattr(cluster_mod.CoreRun, "__init__", counted)
    return counts


@pytest.mark.parametrize("cores", [2, 4])
def test_counts_are_exact_per_core(firmware: Callable[..., Machine], monkeypatch: pytest.MonkeyPatch,
                                   cores: int) -> None:
    machine = firmware(_source(cores), cores=cores)
    traced = _traced(monkeypatch)
    cx = machine.run_cluster(cores)
    assert cx.execution.exit_status == 0  # the shared memory holds every core's outputs
    assert cx.barriers == 2  # one fork: the start and the join
    for trace in cx.traces:
        assert trace.end.instructions == traced[trace.core]
        assert len(trace.arrivals) == 2  # core 0 exits before the others leave the join
    work = [t.arrivals[1].instructions - t.arrivals[0].instructions for t in cx.traces[1:]]
    assert work == sorted(work) and (cores == 2 or work[0] < work[-1])  # the uneven shares show


def test_schedule_is_deterministic_and_barrier_cycles(firmware: Callable[..., Machine]) -> None:
    machine = firmware(_source(4), cores=4)
    a, b = machine.run_cluster(4), machine.run_cluster(4)
    for ta, tb in zip(a.traces, b.traces):
        assert [s.instructions for s in ta.arrivals] == [s.instructions for s in tb.arrivals]
    model = CoreModel()
    tallies = [ClassTally(t.blocks) for t in a.traces]

    def cost(k: int, snap: object) -> int:
        return model.cycles(tallies[k].classes(snap))  # type: ignore[arg-type]

    clock = replay(a.traces, a.barriers, cost)
    busy = [[cost(k, s) for s in t.arrivals] for k, t in enumerate(a.traces)]
    first = max(busy[k][0] for k in range(4)) + BARRIER_CYCLES
    # the join: the slowest core's work after the fork, plus the barrier
    join = max(first + busy[k][1] - busy[k][0] for k in range(4)) + BARRIER_CYCLES
    marks = a.traces[0].mark_barriers
    begin, end = a.execution.marks[1][0], a.execution.marks[2][0]  # LAYER_BEGIN(0), LAYER_END(0)
    layer = clock.clock(0, end.snapshot, marks[2]) - clock.clock(0, begin.snapshot, marks[1])
    after = cost(0, end.snapshot) - busy[0][1]  # core 0's own work from the join to the end mark
    assert layer == join - cost(0, begin.snapshot) + after
    assert clock.waited[3][1] == join - busy[3][1]
    slowest = max(range(4), key=lambda k: busy[k][1] - busy[k][0])
    assert slowest == 3  # the largest share


def test_a_fault_names_its_core(firmware: Callable[..., Machine]) -> None:
    machine = firmware(_source(4, faulty=2), cores=4)
    with pytest.raises(MemoryAccessError, match=r"core 2: load from unmapped address 0x00000000") as e:
        machine.run_cluster(4)
    assert "layer 0" in str(e.value) and "\n" not in str(e.value)


def test_firmware_that_never_forks(firmware: Callable[..., Machine]) -> None:
    """Core 0 runs to the exit before the others first run (no layer split: an accelerator took them all)."""
    machine = firmware({"main.c": "int main(void) { return 0; }\n"}, cores=4)
    cx = machine.run_cluster(4)
    assert cx.execution.exit_status == 0 and cx.barriers == 0
    assert [len(t.arrivals) for t in cx.traces] == [0, 0, 0, 0]
    assert [t.end.instructions for t in cx.traces[1:]] == [0, 0, 0]
