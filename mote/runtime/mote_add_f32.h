#ifndef MOTE_ADD_F32_H
#define MOTE_ADD_F32_H

#include "mote_binary_f32.h"
#include "mote_types.h"

/* output = clamp(a + b, act_min, act_max) in float32 with numpy broadcasting; bit-exact with TFLite
 * Micro's float ADD. Needs no scratch; an input of the output's shape may share its bytes. */
mote_status mote_add_f32(const mote_binary_f32_params *p, const float *a, const float *b, float *output,
                         mote_scratch scratch);

#endif
