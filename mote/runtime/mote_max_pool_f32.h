#ifndef MOTE_MAX_POOL_F32_H
#define MOTE_MAX_POOL_F32_H

#include "mote_pool_f32.h"
#include "mote_types.h"

/* Max pooling over NHWC float32: each window's largest in-bounds value (from the lowest float, a NaN
 * never wins), then clamped: bit-exact with TFLite Micro's float reference MaxPool.
 * Accumulates in the output pixel, all channels per tap; needs no scratch; the output must not overlap
 * the input. */
mote_status mote_max_pool_f32(const mote_pool_f32_params *p, const float *input, float *output,
                              mote_scratch scratch);

#endif
