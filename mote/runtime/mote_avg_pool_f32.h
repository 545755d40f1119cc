#ifndef MOTE_AVG_POOL_F32_H
#define MOTE_AVG_POOL_F32_H

#include "mote_pool_f32.h"
#include "mote_types.h"

/* Average pooling over NHWC float32: each window's in-bounds values summed from 0 row by row, divided by
 * their count, then clamped: bit-exact with TFLite Micro's float reference AveragePool.
 * Accumulates in the output pixel, all channels per tap; needs no scratch; the output must not overlap
 * the input. */
mote_status mote_avg_pool_f32(const mote_pool_f32_params *p, const float *input, float *output,
                              mote_scratch scratch);

#endif
