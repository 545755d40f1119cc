#ifndef MOTE_SUM_F32_H
#define MOTE_SUM_F32_H

#include "mote_reduce.h"

/* Sum of a float32 tensor over some axes, each output from 0 in the input's row-major order: bit-exact with TFLite Micro's float SUM. Needs no scratch. */
mote_status mote_sum_f32(const mote_reduce_params *p, const float *input, float *output, mote_scratch scratch);

#endif
