#ifndef MOTE_BROADCAST_ARGS_H
#define MOTE_BROADCAST_ARGS_H

#include "mote_types.h"

/* BROADCAST_ARGS of two shape vectors (int32, or int64 when wide), aligned from the end. */
typedef struct {
  int32_t a_size, b_size, out_size;
  int32_t wide;
} mote_broadcast_args_params;

/* Two differing extents, neither 1, fail (MOTE_ERROR) as TFLite Micro aborts. Needs no scratch. */
mote_status mote_broadcast_args(const mote_broadcast_args_params *p, const void *a, const void *b, void *output,
                                mote_scratch scratch);

#endif
