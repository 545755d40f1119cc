"""The DMA device and its timing: a job copies at its start, a wait for an unfinished job stalls the core
by what the documented model (mote.sim.dma_timing) says, a wait for a finished one costs nothing, and
L1 loads and stores are counted apart from the RAM's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mote.sim.dma_device import DmaJob, DmaWait
from mote.sim.dma_timing import DmaTimeline, schedule
from mote.sim.energy import accesses
from mote.sim.faults import MemoryAccessError
from mote.sim.machine import Machine
from mote.sim.platforms import Dma, builtin
from tests.sim.dma_header import paste_dma_header

PLATFORM = builtin("cluster8").with_cores(1)
BYTES = 4096

# Fills a RAM (L2) buffer, copies it to L1 and waits at once (a stall), checks the copy from L1, then
# starts a short copy and waits only after a long loop (no stall).
MAIN = f"""\
#include <stdint.h>
#include "mote_dma.h"

static int8_t l2[{BYTES}];
static int8_t l1[{BYTES}] MOTE_L1;
volatile uint32_t sink;

int main(void) {{
  for (uint32_t i = 0; i < {BYTES}u; ++i) l2[i] = (int8_t)(i * 7u);
  MOTE_VP_RUN_BEGIN();
  uint32_t job = MOTE_DMA_START(l1, l2, {BYTES}u);
  MOTE_DMA_WAIT(job);
  for (uint32_t i = 0; i < {BYTES}u; ++i)
    if (l1[i] != (int8_t)(i * 7u)) return 1;
  job = MOTE_DMA_START(l2, l1, 64u);
  for (uint32_t i = 0; i < 2000u; ++i) sink = i;
  MOTE_DMA_WAIT(job);
  MOTE_VP_RUN_END();
  return 0;
}}
"""


def _sources(main: str) -> dict[str, str]:
    """main.c with the library's mote_dma.h pasted in."""
    return {"main.c": paste_dma_header(main)}


@pytest.fixture(scope="module")
def dma_run(firmware: Callable[..., Machine]):
    machine = firmware(_sources(MAIN), platform=PLATFORM)
    return machine, machine.run()


def test_a_wait_for_an_unfinished_job_stalls_and_one_for_a_finished_job_does_not(dma_run) -> None:
    machine, ex = dma_run
    events = ex.dma.events
    assert [type(e) for e in events] == [DmaJob, DmaWait, DmaJob, DmaWait]
    assert [(e.source, e.target, e.nbytes) for e in events[::2]] == [("ram", "l1", BYTES), ("l1", "ram", 64)]
    core = PLATFORM.compute.cycles
    timeline = DmaTimeline(ex.dma, ex.dma_classes, core, PLATFORM)
    start, wait = (core.cycles(c) for c in ex.dma_classes[:2])
    dma = PLATFORM.l1_dma()
    transfer = dma.setup_cycles + BYTES // dma.bytes_per_cycle
    assert 0 < wait - start < transfer  # the wait comes a few instructions after the start
    assert timeline.stalls[1] == start + transfer - wait  # it waits out the rest of the transfer
    assert timeline.stalls[3] == 0  # 2000 loop iterations outlast a 64-byte job
    assert timeline.stalls[0] == timeline.stalls[2] == 0  # one job in flight at a time: no channel stall
    run = timeline.between(-1, ex.instructions)
    assert run.exposed_cycles == timeline.stalls[1] and run.jobs == 2
    assert run.bytes == {"l2": {"read": BYTES, "written": 64}, "l1": {"read": 64, "written": BYTES}}


def test_l1_loads_are_counted_apart_from_the_ram(dma_run) -> None:
    machine, ex = dma_run
    marks = [mk for mk, _, _ in ex.marks]
    loads, stores = accesses(PLATFORM, marks[0].snapshot, marks[-1].snapshot)
    assert loads["l1"] == BYTES  # the check reads every byte of the copy from L1
    assert stores["l1"] == 0 and loads["l2"] == 0  # the DMA's own copies are no core accesses


def test_channels_limit_the_jobs_in_flight() -> None:
    jobs = [DmaJob(k, "ram", "l1", 800, None) for k in (1, 2, 3)]
    dma = Dma("l2", "l1", bytes_per_cycle=8, channels=2, setup_cycles=0)
    stalls, busy = schedule(jobs, [0, 1, 2], dma)
    # each job takes 100 cycles, one after another: the third start waits for the first to end
    assert busy == [100, 100, 100] and stalls == [0, 0, 98]


def test_a_job_outside_the_memories_stops_the_run(firmware: Callable[..., Machine]) -> None:
    end = PLATFORM.memory("l1").bytes  # a copy that runs past the end of the L1
    bad = MAIN.replace("MOTE_DMA_START(l1, l2,", f"MOTE_DMA_START((int8_t *)(MOTE_VP_L1_BASE + {end} - 8), l2,")
    machine = firmware(_sources(bad), platform=PLATFORM)
    with pytest.raises(MemoryAccessError, match="not inside one memory"):
        machine.run()
