#ifndef MOTE_REQUANTIZE_INT_H
#define MOTE_REQUANTIZE_INT_H

#include "mote_types.h"

/* Integer -> integer with new quantization, for any pair of int8, uint8, int16 and int32:
 * out = clamp(requantize(x - input_zero_point, multiplier, shift) + output_zero_point, output_min, output_max),
 * the int32 arithmetic wrapping as the interpreter's does on a 32-bit core. */
typedef struct {
  int32_t size;                                /* elements */
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier, shift;                   /* Q31 multiplier, shift (> 0: left) of s_in / s_out */
  int32_t input_type, output_type;             /* 0 int8, 1 uint8, 2 int16, 3 int32 */
  int32_t output_min, output_max;              /* the output type's range */
} mote_requantize_int_params;

/* Bit-exact with TFLite Micro's integer QUANTIZE (Requantize). Needs no scratch. */
mote_status mote_requantize_int(const mote_requantize_int_params *p, const void *input, void *output,
                                mote_scratch scratch);

#endif
