#ifndef MOTE_SUM_S8_H
#define MOTE_SUM_S8_H

#include "mote_reduce.h"

/* Sum of an int8 tensor over some axes, requantized as TFLite Micro's interpreter does (mote_reduce_quantized_params). Needs no scratch. */
mote_status mote_sum_s8(const mote_reduce_quantized_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif
