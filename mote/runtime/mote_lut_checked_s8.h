#ifndef MOTE_LUT_CHECKED_S8_H
#define MOTE_LUT_CHECKED_S8_H

#include "mote_types.h"

/* An int8 function by table, defined from min_input on: out = table[(uint8_t)x]; MOTE_ERROR (output
 * unspecified) when an input is below min_input (RSQRT of a negative value). */
typedef struct {
  int32_t size;
  const int8_t *table; /* [256] indexed by the input byte */
  int32_t min_input;
} mote_lut_checked_s8_params;

/* Needs no scratch. */
mote_status mote_lut_checked_s8(const mote_lut_checked_s8_params *p, const int8_t *input, int8_t *output,
                                mote_scratch scratch);

#endif
