#ifndef MOTE_AVG_POOL_S16_H
#define MOTE_AVG_POOL_S16_H

#include "mote_max_pool_s8.h"

/* Average pooling over NHWC int16, bit-exact with TFLite Micro's int16 AveragePool: the in-bounds taps'
 * sum divided by their count, halves away from zero. Needs no scratch. */
mote_status mote_avg_pool_s16(const mote_pool_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch);

#endif
