#ifndef MOTE_SQUARED_DIFFERENCE_F32_H
#define MOTE_SQUARED_DIFFERENCE_F32_H

#include "mote_binary_f32.h"

/* float32 (a - b) * (a - b), as TFLite Micro's float SQUARED_DIFFERENCE, broadcast. Needs no scratch. */
mote_status mote_squared_difference_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                                        mote_scratch scratch);

#endif
