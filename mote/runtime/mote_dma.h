/* DMA between memory levels, for the layers mote tiles into an L1 scratchpad.
 *
 *   uint32_t job = MOTE_DMA_START(dst, src, bytes);  starts copying `bytes` bytes from src to dst
 *   MOTE_DMA_WAIT(job);                              returns once that copy is done
 *   static int8_t buffers[N] MOTE_L1;                places a static array in the L1 (the .l1 section)
 *
 * On mote's virtual platform (mote_vp.h defines the DMA registers) a job is the cluster DMA device's:
 * it runs while the core computes, and a wait stalls the core only if the job has not finished. Anywhere
 * else the copy is a memcpy done at the start, the wait does nothing, and the "L1" is ordinary memory,
 * so the same model.c runs (bit for bit the same) on a host. */
#ifndef MOTE_DMA_H
#define MOTE_DMA_H

#include <stdint.h>
#include "mote_libc.h"

#ifdef MOTE_VP_DMA_START_ADDR
#define MOTE_DMA_START(dst, src, bytes)                                                             \
  (MOTE_VP_REG(DMA_SRC) = (uint32_t)(uintptr_t)(src), MOTE_VP_REG(DMA_DST) = (uint32_t)(uintptr_t)(dst), \
   MOTE_VP_REG(DMA_LEN) = (uint32_t)(bytes), MOTE_VP_REG(DMA_START))
#define MOTE_DMA_WAIT(job) (MOTE_VP_REG(DMA_WAIT) = (uint32_t)(job))
#define MOTE_L1 __attribute__((section(".l1")))
#else
static inline uint32_t mote_dma_copy(void *dst, const void *src, uint32_t bytes) {
  memcpy(dst, src, bytes);
  return 1u;
}
#define MOTE_DMA_START(dst, src, bytes) mote_dma_copy((dst), (src), (uint32_t)(bytes))
#define MOTE_DMA_WAIT(job) ((void)(job))
#define MOTE_L1
#endif

#endif
