#ifndef MOTE_REDUCE_MIN_F32_H
#define MOTE_REDUCE_MIN_F32_H

#include "mote_reduce.h"

/* Minimum of a float32 tensor over some axes, as TFLite Micro: (v < acc ? v : acc) from the highest float, so a NaN is never taken. Needs no scratch. */
mote_status mote_reduce_min_f32(const mote_reduce_params *p, const float *input, float *output, mote_scratch scratch);

#endif
