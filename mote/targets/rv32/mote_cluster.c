/* The fork-join runtime of a cluster (mote_cluster.h). */
#include "mote_cluster.h"

#include "mote_vp.h"

static mote_task volatile current;                /* the task of the fork in progress */
static volatile int status[MOTE_VP_CORES];        /* each core's result of it */

/* Not inlined: the store is a call's last instruction but its return, in one place for every caller. */
__attribute__((noinline)) void mote_barrier(void) { MOTE_VP_REG(BARRIER) = 0u; }

int mote_fork(mote_task task) {
  current = task;
  mote_barrier();                                 /* the workers take the task */
  status[0] = task(0);
  mote_barrier();                                 /* every share is done */
  for (uint32_t core = 0; core < MOTE_VP_CORES; ++core) {
    if (status[core] != 0) return status[core];
  }
  return 0;
}

void mote_worker(void) {
  const uint32_t core = mote_core_id();
  for (;;) {
    mote_barrier();
    status[core] = current(core);
    mote_barrier();
  }
}
