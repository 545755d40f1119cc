#ifndef MOTE_ABS_INT_H
#define MOTE_ABS_INT_H

#include "mote_types.h"

/* int8 or int16 (wide) ABS as TFLite Micro computes it (mote/ops/abs_int.py). */
typedef struct {
  int32_t size;
  int32_t input_offset, output_offset; /* the zero points */
  int32_t rescale;                     /* 1: requantize |x - input_offset| by multiplier, shift */
  int32_t multiplier, shift;
  int32_t out_min, out_max;
  int32_t wrap;                        /* 1: unquantized int16, |x| wrapping like a cast */
  int32_t wide;                        /* 1: int16 elements, else int8 */
} mote_abs_int_params;

/* Bit-exact with TFLite Micro's int8 and int16 ABS. Needs no scratch. */
mote_status mote_abs_int(const mote_abs_int_params *p, const void *input, void *output, mote_scratch scratch);

#endif
