#ifndef MOTE_RELU_S8_H
#define MOTE_RELU_S8_H

#include "mote_types.h"

/* out = clamp(requantize(x - input_zero_point, multiplier, shift) + output_zero_point, act_min, act_max). */
typedef struct {
  int32_t size;                                 /* elements */
  int32_t input_zero_point, output_zero_point;  /* in [-128, 127] */
  int32_t multiplier, shift;                    /* Q31 multiplier, shift (> 0: left) of s_in / s_out */
  int32_t act_min, act_max;                     /* max(output_zero_point, -128), 127 */
} mote_relu_params;

/* int8 RELU with requantization; bit-exact with TFLite Micro's int8 RELU. Needs no scratch. */
mote_status mote_relu_s8(const mote_relu_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif
