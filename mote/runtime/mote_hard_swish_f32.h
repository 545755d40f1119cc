#ifndef MOTE_HARD_SWISH_F32_H
#define MOTE_HARD_SWISH_F32_H

#include "mote_elementwise_f32.h"

/* float32 HARD_SWISH, element by element: x * min(max(x + 3, 0), 6) / 6, in TFLite Micro's order. May run in place. Needs no scratch. */
mote_status mote_hard_swish_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
