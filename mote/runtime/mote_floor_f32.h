#ifndef MOTE_FLOOR_F32_H
#define MOTE_FLOOR_F32_H

#include "mote_elementwise_f32.h"

/* float32 FLOOR, element by element: the largest integer not above x (std::floor). May run in place. Needs no scratch. */
mote_status mote_floor_f32(const mote_elementwise_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
