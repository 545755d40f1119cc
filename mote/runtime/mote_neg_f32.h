#ifndef MOTE_NEG_F32_H
#define MOTE_NEG_F32_H

#include "mote_elementwise_f32.h"

/* float32 NEG, element by element: -x. May run in place. Needs no scratch. */
mote_status mote_neg_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
