#ifndef MOTE_EXP_F32_H
#define MOTE_EXP_F32_H

#include "mote_elementwise_f32.h"

/* float32 EXP, element by element: e^x (mote_expf). May run in place. Needs no scratch. */
mote_status mote_exp_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
