#ifndef MOTE_LOGISTIC_S8_H
#define MOTE_LOGISTIC_S8_H

#include "mote_types.h"

/* The input scaling shared by the int8 logistic and tanh kernels: with d = x - input_zero_point,
 * |d| >= input_range_radius saturates; otherwise requantize(d, input_multiplier, input_left_shift)
 * is the input in Q4.27 fixed point. */
typedef struct {
  int32_t size;               /* elements */
  int32_t input_zero_point;   /* in [-128, 127] */
  int32_t input_range_radius; /* >= 0 */
  int32_t input_multiplier;   /* Q31 */
  int32_t input_left_shift;   /* 0..62; > 30 only with radius 0 (everything saturates) */
} mote_sigmoid_params;

/* Sigmoid, int8 out with scale 1/256 and zero point -128; bit-exact with TFLite Micro's int8
 * LOGISTIC. Needs no scratch. */
mote_status mote_logistic_s8(const mote_sigmoid_params *p, const int8_t *input, int8_t *output,
                             mote_scratch scratch);

#endif
