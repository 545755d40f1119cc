#ifndef MOTE_ROUND_F32_H
#define MOTE_ROUND_F32_H

#include "mote_elementwise_f32.h"

/* float32 ROUND, element by element: x rounded half to even, as TFLite's reference Round. May run in place. Needs no scratch. */
mote_status mote_round_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
