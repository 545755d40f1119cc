#ifndef MOTE_MEAN_F32_H
#define MOTE_MEAN_F32_H

#include "mote_types.h"

#define MOTE_MEAN_F32_MAX_DIMS 8

/* Mean of a float32 tensor over some axes. The input's dimensions are split into kept ones (the output,
 * in row-major order) and reduced ones, each list with neighbours merged; shapes give extents and
 * strides give input element strides. Output o sums the input over every reduced index from 0, in the
 * input's row-major order, then divides by `count`: bit-exact with TFLite Micro's float MEAN. */
typedef struct {
  int32_t kept_rank;                   /* 1..MOTE_MEAN_F32_MAX_DIMS */
  const int32_t *kept_shape, *kept_strides;
  int32_t reduced_rank;                /* 1..MOTE_MEAN_F32_MAX_DIMS */
  const int32_t *reduced_shape, *reduced_strides;
  float count;                         /* reduced elements per output */
} mote_mean_f32_params;

/* Needs no scratch. */
mote_status mote_mean_f32(const mote_mean_f32_params *p, const float *input, float *output, mote_scratch scratch);

#endif
