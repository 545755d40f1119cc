"""The cluster DMA on several cores (mote.sim.cluster, mote.sim.cluster_clock): one engine that core 0 alone
programs, timed on core 0's clock with its barrier waits, so that a copy started before a fork is hidden behind
the slowest core's share, a copy waited for at once stalls core 0 on the critical path, and another core's
access to the DMA is a fault naming that core."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mote.sim.cluster_clock import DmaTrack, replay
from mote.sim.counting import ClassTally
from mote.sim.dma_device import DmaJob, DmaWait
from mote.sim.dma_timing import DmaTimeline, engine_of
from mote.sim.faults import MemoryAccessError
from mote.sim.machine import Machine
from mote.sim.platforms import builtin
from tests.sim.dma_header import paste_dma_header

CORES = 4
PLATFORM = builtin("cluster8").with_cores(CORES)
BYTES = 4096

# Layer 0: core 0 starts a copy into L1, forks a task in which core k loops 300 k times (core 0 not at all),
# then waits for the copy. Layer 1: a copy waited for at once. Core TOUCHER (if any) writes a DMA register.
MAIN = f"""\
#include <stdint.h>
#include "mote_dma.h"
#include "mote_cluster.h"

static int8_t l2[{BYTES}];
static int8_t l1[{BYTES}] MOTE_L1;
static volatile uint32_t sink[MOTE_VP_CORES];

static int work(uint32_t core) {{
  if ((int)core == TOUCHER) MOTE_VP_REG(DMA_LEN) = 4u;
  for (uint32_t i = 0; i < 300u * core; ++i) sink[core] = i;
  return 0;
}}

int main(void) {{
  for (uint32_t i = 0; i < {BYTES}u; ++i) l2[i] = (int8_t)(i * 7u);
  MOTE_VP_RUN_BEGIN();
  MOTE_LAYER_BEGIN(0);
  uint32_t job = MOTE_DMA_START(l1, l2, {BYTES}u);
  int status = mote_fork(work);
  MOTE_DMA_WAIT(job);
  MOTE_LAYER_END(0);
  MOTE_LAYER_BEGIN(1);
  job = MOTE_DMA_START(l1, l2, {BYTES}u);
  MOTE_DMA_WAIT(job);
  MOTE_LAYER_END(1);
  MOTE_VP_RUN_END();
  for (uint32_t i = 0; i < {BYTES}u; ++i)
    if (l1[i] != (int8_t)(i * 7u)) return 1;
  return status;
}}
"""


def _sources(toucher: int) -> dict[str, str]:
    return {"main.c": f"#define TOUCHER {toucher}\n" + paste_dma_header(MAIN)}


def test_dma_is_timed_on_core_0s_cluster_clock(firmware: Callable[..., Machine]) -> None:
    machine = firmware(_sources(-1), platform=PLATFORM, cores=CORES)
    cx = machine.run_cluster(CORES)
    ex = cx.execution
    assert ex.exit_status == 0  # the copies landed in the shared L1
    events = ex.dma.events
    assert [type(e) for e in events] == [DmaJob, DmaWait, DmaJob, DmaWait]
    assert cx.traces[0].dma_barriers == [0, 2, 2, 2]  # the first start before the fork, the rest after the join
    model = PLATFORM.compute.cycles
    tally = ClassTally({a: insns for t in cx.traces for a, insns in t.blocks.items()})

    def cost(k: int, snap: object) -> int:
        return model.cycles(tally.classes(snap))  # type: ignore[arg-type]

    track = DmaTrack(events, [cost(0, e.snapshot) for e in events], [e.snapshot.instructions for e in events],
                     cx.traces[0].dma_barriers, engine_of(PLATFORM))
    clock = replay(cx.traces, cx.barriers, cost, dma=track)
    dma = engine_of(PLATFORM)
    transfer = dma.setup_cycles + BYTES // dma.bytes_per_cycle
    # core 0's own work between the first start and its wait is shorter than the copy: timed on its own
    # cycles the wait would stall; on the cluster's clock it waited at the join for core 3's longer share
    own = DmaTimeline(ex.dma, ex.dma_classes, model, PLATFORM)
    assert own.stalls[1] > 0 and track.own[1] - track.own[0] < transfer
    assert clock.dma_stalls is not None and clock.dma_stalls[1] == 0
    # the second copy is waited for at once: the rest of the transfer is exposed, on the critical path
    assert clock.dma_stalls[3] == transfer - (track.own[3] - track.own[2]) > 0
    marks = cx.traces[0].mark_barriers
    at = {(mk.reg.name, mk.value): i for i, (mk, _, _) in enumerate(ex.marks) if mk.reg.name.startswith("LAYER")}

    def clock0(key: tuple[str, int]) -> int:
        i = at[key]
        return clock.clock(0, ex.marks[i][0].snapshot, marks[i])

    layer1 = clock0(("LAYER_END", 1)) - clock0(("LAYER_BEGIN", 1))
    assert layer1 == cost(0, ex.marks[at[("LAYER_END", 1)]][0].snapshot) \
        - cost(0, ex.marks[at[("LAYER_BEGIN", 1)]][0].snapshot) + clock.dma_stalls[3]
    # the fork-join layer lasts at least core 3's share, and its copy adds nothing to it
    layer0 = clock0(("LAYER_END", 0)) - clock0(("LAYER_BEGIN", 0))
    share3 = clock.busy[3][1] - clock.busy[3][0]
    assert share3 < layer0 < share3 + transfer


def test_only_core_0_programs_the_dma(firmware: Callable[..., Machine]) -> None:
    machine = firmware(_sources(2), platform=PLATFORM, cores=CORES)
    with pytest.raises(MemoryAccessError, match=r"core 2: only core 0 programs the cluster DMA") as e:
        machine.run_cluster(CORES)
    assert "\n" not in str(e.value)
