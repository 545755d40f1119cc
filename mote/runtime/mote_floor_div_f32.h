#ifndef MOTE_FLOOR_DIV_F32_H
#define MOTE_FLOOR_DIV_F32_H

#include "mote_binary_f32.h"

/* float32 floor(a / b), as TFLite Micro's float FLOOR_DIV, broadcast. Needs no scratch. */
mote_status mote_floor_div_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                               mote_scratch scratch);

#endif
