#ifndef MOTE_LEAKY_RELU_F32_H
#define MOTE_LEAKY_RELU_F32_H

#include "mote_types.h"

typedef struct {
  int32_t size; /* elements */
  float alpha;
} mote_leaky_relu_f32_params;

/* float32 LEAKY_RELU as TFLite Micro: x > 0 ? x : x * alpha. May run in place. Needs no scratch. */
mote_status mote_leaky_relu_f32(const mote_leaky_relu_f32_params *p, const float *input, float *output,
                                mote_scratch scratch);

#endif
