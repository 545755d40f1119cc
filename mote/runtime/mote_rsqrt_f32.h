#ifndef MOTE_RSQRT_F32_H
#define MOTE_RSQRT_F32_H

#include "mote_elementwise_f32.h"

/* float32 RSQRT, element by element: 1 / sqrt(x), two correctly rounded steps as TFLite Micro's. May run in place. Needs no scratch. */
mote_status mote_rsqrt_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
