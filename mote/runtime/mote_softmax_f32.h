#ifndef MOTE_SOFTMAX_F32_H
#define MOTE_SOFTMAX_F32_H

#include "mote_types.h"

typedef struct {
  int32_t rows;  /* the product of every axis but the last */
  int32_t depth; /* the last axis, over which each row sums to 1 */
  float beta;
} mote_softmax_f32_params;

/* float32 softmax in TFLite Micro's float reference order: per row the max m, then
 * e_c = exp((x_c - m) * beta) summed left to right, then e_c / sum. May run in place. No scratch. */
mote_status mote_softmax_f32(const mote_softmax_f32_params *p, const float *input, float *output,
                             mote_scratch scratch);

#endif
