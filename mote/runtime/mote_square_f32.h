#ifndef MOTE_SQUARE_F32_H
#define MOTE_SQUARE_F32_H

#include "mote_elementwise_f32.h"

/* float32 SQUARE, element by element: x * x. May run in place. Needs no scratch. */
mote_status mote_square_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
