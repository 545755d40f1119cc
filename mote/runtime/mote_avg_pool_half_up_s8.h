#ifndef MOTE_AVG_POOL_HALF_UP_S8_H
#define MOTE_AVG_POOL_HALF_UP_S8_H

#include "mote_max_pool_s8.h" /* mote_pool_params */

/* Average pooling of a legacy uint8 model, computed on its values shifted by -128: as mote_avg_pool_s8,
 * but halves round up, as TensorFlow Lite's uint8 AveragePool rounds (sum + count / 2) / count on the
 * unshifted, non-negative sums. Returns MOTE_ERROR if a window has no in-bounds tap. */
mote_status mote_avg_pool_half_up_s8(const mote_pool_params *p, const int8_t *input, int8_t *output,
                                     mote_scratch scratch);

#endif
