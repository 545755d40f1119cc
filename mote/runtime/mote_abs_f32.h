#ifndef MOTE_ABS_F32_H
#define MOTE_ABS_F32_H

#include "mote_elementwise_f32.h"

/* float32 ABS, element by element: |x|, the sign cleared (fabsf). May run in place. Needs no scratch. */
mote_status mote_abs_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
