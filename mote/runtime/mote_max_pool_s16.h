#ifndef MOTE_MAX_POOL_S16_H
#define MOTE_MAX_POOL_S16_H

#include "mote_max_pool_s8.h"

/* Max pooling over NHWC int16, as mote_max_pool_s8 (the same parameters). Needs no scratch. */
mote_status mote_max_pool_s16(const mote_pool_params *p, const int16_t *input, int16_t *output,
                              mote_scratch scratch);

#endif
