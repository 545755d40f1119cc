#ifndef MOTE_COS_F32_H
#define MOTE_COS_F32_H

#include "mote_elementwise_f32.h"

/* float32 COS, element by element: cos x (mote_cosf). May run in place. Needs no scratch. */
mote_status mote_cos_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
