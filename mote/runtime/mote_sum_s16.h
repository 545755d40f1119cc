#ifndef MOTE_SUM_S16_H
#define MOTE_SUM_S16_H

#include "mote_reduce.h"

/* Sum of an int16 tensor over some axes, requantized as TFLite Micro's interpreter does (mote_reduce_quantized_params). Needs no scratch. */
mote_status mote_sum_s16(const mote_reduce_quantized_params *p, const int16_t *input, int16_t *output, mote_scratch scratch);

#endif
