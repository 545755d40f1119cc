/* The parameters of the quantized LEAKY_RELU kernels (mote_leaky_relu_s8, mote_leaky_relu_s16). */
#ifndef MOTE_LEAKY_RELU_PARAMS_H
#define MOTE_LEAKY_RELU_PARAMS_H

#include "mote_types.h"

/* out = clamp(output_zero_point + requantize(x - input_zero_point, d >= 0 ? identity : alpha)). */
typedef struct {
  int32_t size;
  int32_t input_zero_point, output_zero_point;
  int32_t identity_multiplier, identity_shift; /* Q31, shift (> 0: left): s_in / s_out */
  int32_t alpha_multiplier, alpha_shift;       /* s_in * alpha / s_out */
  int32_t act_min, act_max;                    /* the output type's range */
} mote_leaky_relu_params;

#endif
