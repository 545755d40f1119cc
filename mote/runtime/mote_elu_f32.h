#ifndef MOTE_ELU_F32_H
#define MOTE_ELU_F32_H

#include "mote_elementwise_f32.h"

/* float32 ELU, element by element: x < 0 ? e^x - 1 : x (mote_expm1f). May run in place. Needs no scratch. */
mote_status mote_elu_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
