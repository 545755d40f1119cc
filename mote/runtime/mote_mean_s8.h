#ifndef MOTE_MEAN_S8_H
#define MOTE_MEAN_S8_H

#include "mote_types.h"

#define MOTE_MEAN_MAX_DIMS 8

/* Mean of an int8 tensor over some axes. The input's dimensions are split into kept ones (the output,
 * in row-major order) and reduced ones, each list with neighbours merged; shapes give extents and
 * strides give input element strides. Output o sums the input over every reduced index, then
 * out = clamp(requantize(sum + bias, multiplier, shift) + output_zero_point, -128, 127). */
typedef struct {
  int32_t kept_rank;                   /* 1..MOTE_MEAN_MAX_DIMS */
  const int32_t *kept_shape, *kept_strides;
  int32_t reduced_rank;                /* 1..MOTE_MEAN_MAX_DIMS */
  const int32_t *reduced_shape, *reduced_strides;
  int32_t bias;                        /* -input zero point * (reduced elements), wrapped to int32 */
  int32_t multiplier, shift;           /* Q31, shift (> 0: left): s_in / s_out / (reduced elements) */
  int32_t output_zero_point;
} mote_mean_params;

/* Bit-exact with TFLite Micro's int8 MEAN (every axes combination, keep_dims or not). Needs no scratch. */
mote_status mote_mean_s8(const mote_mean_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif
