#ifndef MOTE_RELU_F32_H
#define MOTE_RELU_F32_H

#include "mote_types.h"

typedef struct {
  int32_t size; /* elements */
} mote_relu_f32_params;

/* float32 RELU: out = x < 0 ? 0 : x (a NaN and -0 pass through), as TFLite Micro's float Relu.
 * Needs no scratch. */
mote_status mote_relu_f32(const mote_relu_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
