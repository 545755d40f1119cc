#ifndef MOTE_AVG_POOL_S8_H
#define MOTE_AVG_POOL_S8_H

#include "mote_max_pool_s8.h" /* mote_pool_params */

/* Average pooling over NHWC int8: each window is clipped to the input and divided by its number of
 * in-bounds taps, rounding halves away from zero, then clamped to [act_min, act_max]. Input and
 * output share quantization, so no requantization. Bit-exact with TFLite Micro's int8 AveragePool.
 * Returns MOTE_ERROR if a window has no in-bounds tap (impossible for SAME/VALID geometry). */
mote_status mote_avg_pool_s8(const mote_pool_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif
