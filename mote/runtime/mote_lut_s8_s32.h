#ifndef MOTE_LUT_S8_S32_H
#define MOTE_LUT_S8_S32_H

#include "mote_types.h"

/* An int8 -> int32 function by table: out = table[(uint8_t)x], the table built at compile time. */
typedef struct {
  int32_t size;
  const int32_t *table; /* [256] indexed by the input byte */
} mote_lut_s8_s32_params;

/* Needs no scratch; the output must not overlap the input. */
mote_status mote_lut_s8_s32(const mote_lut_s8_s32_params *p, const int8_t *input, int32_t *output,
                            mote_scratch scratch);

#endif
