#ifndef MOTE_REQUANTIZE_S8_H
#define MOTE_REQUANTIZE_S8_H

#include "mote_types.h"

/* int8 -> int8 with new quantization:
 * out = clamp(requantize(x - input_zero_point, multiplier, shift) + output_zero_point, -128, 127). */
typedef struct {
  int32_t size;                                /* elements */
  int32_t input_zero_point, output_zero_point; /* in [-128, 127] */
  int32_t multiplier, shift;                   /* Q31 multiplier, shift (> 0: left) of s_in / s_out */
} mote_requantize_params;

/* Bit-exact with TFLite Micro's int8 -> int8 QUANTIZE (Requantize). Needs no scratch. */
mote_status mote_requantize_s8(const mote_requantize_params *p, const int8_t *input, int8_t *output,
                               mote_scratch scratch);

#endif
