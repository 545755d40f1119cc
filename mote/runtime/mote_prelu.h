/* The PRELU kernels (mote_prelu_f32, mote_prelu_int): alpha broadcast against x as mote_broadcast.h walks it. */
#ifndef MOTE_PRELU_H
#define MOTE_PRELU_H

#include "mote_element.h"

typedef struct {
  int32_t rank;
  const int32_t *shape;
  const int32_t *a_strides, *b_strides; /* x's and alpha's */
  /* the integer kernel (mote/ops/prelu.py): zero points, the two requantizations, the output range */
  int32_t input_offset, alpha_offset, output_offset;
  int32_t identity_multiplier, identity_shift;
  int32_t alpha_multiplier, alpha_shift;
  int32_t act_min, act_max;
  int32_t wide; /* 1: x and the output int16, else int8 (alpha is int8 either way) */
} mote_prelu_params;

#endif
