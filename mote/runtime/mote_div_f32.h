#ifndef MOTE_DIV_F32_H
#define MOTE_DIV_F32_H

#include "mote_binary_f32.h"

/* float32 clamp(a / b) with the fused activation's range, as TFLite Micro's float DIV, broadcast. Needs no scratch. */
mote_status mote_div_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                         mote_scratch scratch);

#endif
