#ifndef MOTE_CEIL_F32_H
#define MOTE_CEIL_F32_H

#include "mote_elementwise_f32.h"

/* float32 CEIL, element by element: the smallest integer not below x (std::ceil). May run in place. Needs no scratch. */
mote_status mote_ceil_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
