#ifndef MOTE_PRELU_F32_H
#define MOTE_PRELU_F32_H

#include "mote_prelu.h"

/* float32 PRELU: x >= 0 ? x : x * alpha. Needs no scratch. */
mote_status mote_prelu_f32(const mote_prelu_params *p, const float *input, const float *alpha, float *output,
                           mote_scratch scratch);

#endif
