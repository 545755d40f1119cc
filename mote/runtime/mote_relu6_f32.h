#ifndef MOTE_RELU6_F32_H
#define MOTE_RELU6_F32_H

#include "mote_types.h"

typedef struct {
  int32_t size; /* elements */
} mote_relu6_f32_params;

/* float32 RELU6: out = x > 6 ? 6 : x < 0 ? 0 : x (a NaN and -0 pass through), as TFLite Micro's float Relu6.
 * Needs no scratch. */
mote_status mote_relu6_f32(const mote_relu6_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
