#ifndef MOTE_LUT_S8_H
#define MOTE_LUT_S8_H

#include "mote_types.h"

/* An int8 function by table: out = table[(uint8_t)x], the table built at compile time. */
typedef struct {
  int32_t size;
  const int8_t *table; /* [256] indexed by the input byte */
} mote_lut_s8_params;

/* May run in place. Needs no scratch. */
mote_status mote_lut_s8(const mote_lut_s8_params *p, const int8_t *input, int8_t *output, mote_scratch scratch);

#endif
