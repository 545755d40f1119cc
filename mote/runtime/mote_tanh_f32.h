#ifndef MOTE_TANH_F32_H
#define MOTE_TANH_F32_H

#include "mote_elementwise_f32.h"

/* float32 tanh, element by element, with mote_tanhf. Needs no scratch. */
mote_status mote_tanh_f32(const mote_elementwise_f32_params *p, const float *input, float *output,
                          mote_scratch scratch);

#endif
