#ifndef MOTE_SIN_F32_H
#define MOTE_SIN_F32_H

#include "mote_elementwise_f32.h"

/* float32 SIN, element by element: sin x (mote_sinf). May run in place. Needs no scratch. */
mote_status mote_sin_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
