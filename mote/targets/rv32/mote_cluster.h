/* The fork-join runtime of firmware run by a cluster of cores on mote's virtual platform (mote_cluster.c).
 *
 * Every core starts at the reset entry with its own stack. Core 0 initializes memory and runs main; the
 * others enter mote_worker and wait. A parallel layer is a task: core 0 calls mote_fork(task), every core
 * runs task(its id) on its share of the layer, and mote_fork returns once all have finished, with the
 * first error any of them reported. The barrier is the device's BARRIER register: a core that writes it
 * waits until every core has. */
#ifndef MOTE_CLUSTER_H
#define MOTE_CLUSTER_H

#include <stdint.h>

/* One core's share of a parallel layer: returns MOTE_OK (0) or an error status. */
typedef int (*mote_task)(uint32_t core);

/* This core's id, 0 to MOTE_VP_CORES - 1. */
static inline uint32_t mote_core_id(void) { return MOTE_VP_REG(CORE_ID); }

/* Waits until every core has called it. */
void mote_barrier(void);

/* Core 0: runs `task` on every core; returns the first core's non-zero status, else 0. */
int mote_fork(mote_task task);

/* The other cores: run each forked task, forever. */
void mote_worker(void);

/* Copies `rows` rows of `width` bytes from rows `from_stride` bytes apart at `src` to rows `stride` bytes
 * apart at `dst`: a part of a layer's channels between the layer's tensors and a buffer of the part's own. */
static inline void mote_columns_s8(int8_t *dst, int32_t stride, const int8_t *src, int32_t from_stride, int32_t width,
                                   int32_t rows) {
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c = 0; c < width; ++c) dst[r * stride + c] = src[r * from_stride + c];
  }
}

#endif
