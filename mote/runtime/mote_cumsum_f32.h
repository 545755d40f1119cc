#ifndef MOTE_CUMSUM_F32_H
#define MOTE_CUMSUM_F32_H

#include "mote_types.h"

/* A running sum along one axis of a tensor viewed as [outer][depth][inner]. */
typedef struct {
  int32_t outer, depth, inner;
  int32_t exclusive; /* 1: each output is the sum before its own element */
  int32_t reverse;   /* 1: walk the axis from its end */
} mote_cumsum_f32_params;

/* float32 CUMSUM, in TFLite Micro's order (from 0, element by element). Needs no scratch. */
mote_status mote_cumsum_f32(const mote_cumsum_f32_params *p, const float *input, float *output,
                            mote_scratch scratch);

#endif
