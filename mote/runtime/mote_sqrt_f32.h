#ifndef MOTE_SQRT_F32_H
#define MOTE_SQRT_F32_H

#include "mote_elementwise_f32.h"

/* float32 SQRT, element by element: the correctly rounded square root. May run in place. Needs no scratch. */
mote_status mote_sqrt_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
