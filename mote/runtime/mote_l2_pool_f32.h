#ifndef MOTE_L2_POOL_F32_H
#define MOTE_L2_POOL_F32_H

#include "mote_pool_f32.h"
#include "mote_types.h"

/* L2 pooling over NHWC float32: the square root of the mean of each window's in-bounds squares (summed
 * from 0 row by row), then clamped: bit-exact with TFLite Micro's float reference L2Pool, mote_sqrtf
 * being correctly rounded as std::sqrt is.
 * Accumulates in the output pixel, all channels per tap; needs no scratch; the output must not overlap
 * the input. */
mote_status mote_l2_pool_f32(const mote_pool_f32_params *p, const float *input, float *output,
                             mote_scratch scratch);

#endif
